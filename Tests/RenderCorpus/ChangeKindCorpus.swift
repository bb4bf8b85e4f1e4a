import ReferenceImageCore

/// The change-kind corpus: realistic renders (`RenderCorpus`) with one real change each, and
/// the kinds a person names for it, one label per kind: a move with its offset ("moved by
/// (0, 1)"), the others by name ("added"). A region that mixes kinds must say `changed`, never
/// the more reassuring one. `ChangeKindCorpusTests` requires every pair's kinds; the change-kinds
/// benchmark times classifying the same scenes at 2000 × 2000.
package enum ChangeKindCorpus {
  typealias Chart = RenderCorpus.Chart
  typealias Screen = RenderCorpus.Screen

  package struct Case: Sendable {
    package var name: String
    package var reference: RGBAImage
    package var image: RGBAImage
    /// The kinds a person names, one label per kind ("moved by (0, 1)", "added").
    package var expected: Set<String>
    /// At least this many regions (busy screens keep their changes apart).
    package var minimumRegions = 1
  }

  private static let blue = RenderCorpus.colour(0x2563EB)
  private static let orange = RenderCorpus.colour(0xEA580C)
  private static let green = RenderCorpus.colour(0x16A34A)
  private static let purple = RenderCorpus.colour(0x9333EA)
  private static let grey = RenderCorpus.colour(0x6B7280)

  private static func chart(_ change: (inout Chart) -> Void, base: (inout Chart) -> Void = { _ in })
    throws -> (RGBAImage, RGBAImage)
  {
    var chart = Chart()
    base(&chart)
    let reference = try chart.render()
    change(&chart)
    return (reference, try chart.render())
  }

  private static func screen(
    _ change: (inout Screen) -> Void, base: (inout Screen) -> Void = { _ in }
  ) throws -> (RGBAImage, RGBAImage) {
    var screen = Screen()
    base(&screen)
    let reference = try screen.render()
    change(&screen)
    return (reference, try screen.render())
  }

  private static func withBars(_ chart: inout Chart) {
    chart.bars = (0..<8).map {
      Chart.Bar(x: 8 + Double($0) * 32, height: 30 + Double(($0 * 37) % 90), colour: orange)
    }
  }
  /// A wider screen of twelve panels.
  private static func twelvePanels(_ screen: inout Screen) {
    screen.width = 1280
    screen.panels += screen.panels.map { panel in
      var copy = panel
      copy.x += 640
      return copy
    }
  }

  private static func withLegend(_ chart: inout Chart) {
    chart.legend = (214, 150, [("SALES", blue), ("COSTS", orange)])
  }
  private static func withLabels(_ chart: inout Chart) {
    chart.labels = [("Q1", 60, 198), ("Q2", 125, 198), ("Q3", 190, 198), ("Q4", 255, 198)]
  }
  private static let secondSeries = Chart.Series(
    points: [(0, 20), (40, 30), (80, 25), (120, 45), (160, 40), (200, 60), (240, 52)],
    colour: orange)

  /// Every case of the corpus.
  package static func cases() throws -> [Case] {
    var cases: [Case] = []
    func add(
      _ name: String, _ pair: (RGBAImage, RGBAImage), _ expected: Set<String>, regions: Int = 1
    ) {
      cases.append(
        Case(
          name: name, reference: pair.0, image: pair.1, expected: expected,
          minimumRegions: regions))
    }
    // Moves: a series, a title, a legend, labels, over grid lines that stay put.
    add(
      "series moved down a pixel over the grid", try chart { $0.series[0].offset.y = 1 },
      ["moved by (0, 1)"])
    add(
      "series moved right a pixel over the grid", try chart { $0.series[0].offset.x = 1 },
      ["moved by (1, 0)"])
    add(
      "thick series moved up two pixels",
      try chart({ $0.series[0].offset.y = -2 }, base: { $0.series[0].width = 3 }),
      ["moved by (0, -2)"])
    add(
      "second series moved a pixel over bars and grid",
      try chart({ $0.series[1].offset.y = 1 }, base: { $0.series.append(secondSeries) }),
      ["moved by (0, 1)"])
    add("title moved down as the header grew", try chart { $0.title?.y = 15 }, ["moved by (0, 3)"])
    add("title moved left", try chart { $0.title?.x = 38 }, ["moved by (-2, 0)"])
    add(
      "legend moved right", try chart({ $0.legend?.x = 216 }, base: withLegend),
      ["moved by (2, 0)"])
    add(
      "axis labels moved up a pixel",
      try chart(
        { chart in chart.labels = chart.labels.map { ($0.text, $0.x, $0.y - 1) } },
        base: withLabels), ["moved by (0, -1)"], regions: 4)
    add(
      "marker dot moved by three pixels",
      try chart(
        { $0.dots[0].x += 3 }, base: { $0.dots = [(150, 80, 4, purple)] }), ["moved by (3, 0)"])
    // Removed and added: thin content, dots, series, labels.
    add(
      "thin diagonal hairline removed over the grid",
      try chart({ $0.hairlines = [] }, base: { $0.hairlines = [((60, 60), (260, 170), grey)] }),
      ["removed"])
    add(
      "thin horizontal target line removed",
      try chart(
        { $0.hairlines = [] }, base: { $0.hairlines = [((45, 100.5), (295, 100.5), orange)] }),
      ["removed"])
    add(
      "small dot removed", try chart({ $0.dots = [] }, base: { $0.dots = [(170, 70, 2, purple)] }),
      ["removed"])
    add("small dot added", try chart { $0.dots = [(170, 70, 2, purple)] }, ["added"])
    add(
      "second series added over the grid", try chart { $0.series.append(secondSeries) },
      ["added"])
    add(
      "legend entry removed",
      try chart(
        { $0.legend?.labels.removeLast() }, base: withLegend), ["removed"])
    add("axis label added", try chart { $0.labels = [("Q1", 60, 198)] }, ["added"])
    // Recoloured.
    add(
      "bars recoloured",
      try chart(
        { chart in
          chart.bars = chart.bars.map { Chart.Bar(x: $0.x, height: $0.height, colour: green) }
        }, base: withBars), ["recoloured"], regions: 8)
    add("series recoloured", try chart { $0.series[0].colour = purple }, ["recoloured"])
    add(
      "legend swatch recoloured",
      try chart({ $0.legend?.labels[0].1 = green }, base: withLegend), ["recoloured"])
    // Anti-aliasing and noise.
    add(
      "title redrawn at a third of a pixel", try chart { $0.title?.x = 40.33 },
      ["antiAliasingOrNoise"])
    add(
      "labels redrawn a quarter pixel lower",
      try chart(
        { chart in chart.labels = chart.labels.map { ($0.text, $0.x, $0.y + 0.25) } },
        base: withLabels), ["antiAliasingOrNoise"], regions: 4)
    add(
      "series stroked a little wider", try chart { $0.series[0].width = 2.3 },
      ["antiAliasingOrNoise"])
    add(
      "marker dot a third of a pixel larger",
      try chart({ $0.dots[0].radius = 6.33 }, base: { $0.dots = [(150, 80, 6, purple)] }),
      ["antiAliasingOrNoise"])
    add(
      "plot tint three levels darker",
      try chart(
        { $0.panelTint = RenderCorpus.colour(0xF5F7FA) },
        base: { $0.panelTint = RenderCorpus.colour(0xF8FAFC) }), ["antiAliasingOrNoise"])
    // Changed: new data, other text, bolder text, mixtures.
    add(
      "one data point changed",
      try chart { $0.series[0].points[4].1 = 40 }, ["changed"])
    add("title text replaced", try chart { $0.title?.text = "PROFIT 2024" }, ["changed"])
    add(
      "bar grew taller",
      try chart({ $0.bars[3].height += 12 }, base: withBars), ["changed"])
    add(
      "title moved and a dot added under its first word",
      try chart { chart in
        chart.title?.y = 14
        chart.dots = [(100, 31, 3, purple)]
      }, ["changed"])
    add(
      "series moved and recoloured",
      try chart { chart in
        chart.series[0].offset.y = 1
        chart.series[0].colour = purple
      }, ["changed"])
    // Busy screens: every panel keeps its kind.
    add(
      "screen: three panels' text moved, boxes added in the others",
      try screen { screen in
        for index in [0, 2, 4] { screen.panels[index].bodyOffset = (1, 0) }
        for index in [1, 3, 5] {
          screen.panels[index].boxes = [(120, 70, 50, 30, green), (20, 80, 30, 20, orange)]
        }
      }, ["moved by (1, 0)", "added"], regions: 9)
    add(
      "screen: ninety-six badges added, twelve headings moved",
      try screen(
        { screen in
          for index in screen.panels.indices {
            screen.panels[index].headingOffset = (0, 2)
            for badge in 0..<8 {
              let x = 12 + Double(badge % 4) * 40
              let y = 60 + Double(badge / 4) * 40
              screen.panels[index].boxes.append((x, y, 8, 8, orange))
            }
          }
        }, base: twelvePanels), ["moved by (0, 2)", "added"], regions: 108)
    add(
      "screen: a panel recoloured",
      try screen { $0.panels[2].fill = RenderCorpus.colour(0xE0E7FF) }, ["recoloured"])
    add(
      "screen: body text redrawn at a third of a pixel",
      try screen { screen in
        for index in screen.panels.indices { screen.panels[index].bodyOffset = (0.33, 0) }
      }, ["antiAliasingOrNoise"], regions: 6)
    // Harder: thin content that moves, content that shrinks, two kinds far apart.
    add(
      "hairline moved a pixel down over the grid",
      try chart(
        { $0.hairlines = [((60, 61), (260, 171), grey)] },
        base: { $0.hairlines = [((60, 60), (260, 170), grey)] }), ["moved by (0, 1)"])
    add(
      "dot moved diagonally across a grid crossing",
      try chart({ $0.dots[0] = (172, 68, 3, purple) }, base: { $0.dots = [(170, 66, 3, purple)] }),
      ["moved by (2, 2)"])
    add("bar shrank", try chart({ $0.bars[5].height -= 10 }, base: withBars), ["changed"])
    add(
      "one label moved, another removed",
      try chart(
        { chart in
          chart.labels[0].y -= 2
          chart.labels.remove(at: 3)
        }, base: withLabels), ["moved by (0, -2)", "removed"], regions: 2)
    add(
      "screen: a box removed from a panel",
      try screen(
        { $0.panels[4].boxes = [] },
        base: { $0.panels[4].boxes = [(120, 70, 50, 30, green)] }), ["removed"])
    add(
      "caption set in faux bold",
      try chart(
        { $0.caption?.bold = true }, base: { $0.caption = ("SOURCE: LEDGER", 180, 204, false) }),
      ["changed"])
    add(
      "screen: a heading replaced", try screen { $0.panels[3].heading = "FAILURES" }, ["changed"])
    return cases
  }
}
