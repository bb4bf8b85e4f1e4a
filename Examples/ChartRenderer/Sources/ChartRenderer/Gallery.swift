import ReferenceImageCore

/// Sample renders with fixed data: what the `ChartGallery` tool writes, and ready-made subjects
/// for render tests.
public enum Gallery {
  /// Every sample as a file-name-friendly name and a function that renders it.
  public static let all: [(name: String, render: @Sendable () throws -> RGBAImage)] = [
    ("bar-light", { try weeklyBuilds(theme: .light).render() }),
    ("bar-dark", { try weeklyBuilds(theme: .dark).render() }),
    ("bar-negative", { try profitAndLoss.render() }),
    ("line-light", { try testDurations(theme: .light).render() }),
    ("line-dark", { try testDurations(theme: .dark).render() }),
    ("pie", { try outcomes(isDonut: false).render() }),
    ("donut-dark", { try outcomes(isDonut: true, theme: .dark).render() }),
    ("badge-passing", { try Badge(label: "build", value: "passing").render() }),
    (
      "badge-failing",
      {
        try Badge(label: "tests", value: "3 failed", valueColor: Badge.failing, scale: 1).render()
      }
    ),
    (
      "badge-coverage",
      {
        try Badge(
          label: "coverage", value: "87.5%", valueColor: RGBAColor(hex: 0xDFB317), scale: 3,
          cornerRadius: 6
        ).render()
      }
    ),
    ("shapes-light", { try ShapesScene().render() }),
    ("shapes-dark", { try ShapesScene(width: 320, height: 240, theme: .dark).render() }),
    ("font", { try fontSheet() }),
  ]

  /// A bar chart of builds per weekday.
  /// - Parameter theme: The colours.
  /// - Returns: The chart.
  public static func weeklyBuilds(theme: Theme) -> BarChart {
    BarChart(
      title: "Builds per day", values: [12, 19, 7, 23, 15, 4, 2],
      labels: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"], theme: theme)
  }

  /// A bar chart with negative values and fractional ticks.
  public static let profitAndLoss = BarChart(
    title: "Quarterly margin", values: [1.8, -0.6, 2.4, -1.3, 0.4],
    labels: ["Q1", "Q2", "Q3", "Q4", "Q5"], width: 400, height: 260)

  /// A two-series line chart of test durations, with a gap in the second series.
  /// - Parameter theme: The colours.
  /// - Returns: The chart.
  public static func testDurations(theme: Theme) -> LineChart {
    LineChart(
      title: "Test time (s)", categories: (1...12).map { "#\($0)" },
      series: [
        .init(name: "Linux", values: [41, 38, 44, 52, 47, 45, 60, 58, 49, 43, 40, 42]),
        .init(name: "macOS", values: [30, 31, 29, 35, .nan, 33, 41, 39, 36, 30, 28, 27]),
      ], theme: theme)
  }

  /// A pie chart of test outcomes.
  /// - Parameters:
  ///   - isDonut: Whether to draw a donut.
  ///   - theme: The colours.
  /// - Returns: The chart.
  public static func outcomes(isDonut: Bool, theme: Theme = .light) -> PieChart {
    PieChart(
      title: "Test outcomes",
      slices: [
        .init(label: "passed", value: 412), .init(label: "skipped", value: 37),
        .init(label: "failed", value: 9), .init(label: "flaky", value: 21),
      ], theme: theme, isDonut: isDonut)
  }

  /// Every glyph of `BitmapFont` at scales 1 to 3.
  /// - Returns: The sheet.
  /// - Throws: Never in practice; the size is fixed.
  public static func fontSheet() throws(ImageError) -> RGBAImage {
    var canvas = try Canvas(width: 330, height: 170, background: .white)
    let lines = [
      "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz", "0123456789 .,:;!?-+%/()'\"#=",
      "_*<>[]$&@|~^` \u{00E9}",
    ]
    var y = 8.0
    for (index, line) in lines.enumerated() {
      canvas.drawText(line, at: Point(x: 8, y: y), color: .black)
      y += 12
      if index < 2 {
        canvas.drawText(line, at: Point(x: 8, y: y), scale: 2, color: RGBAColor(hex: 0x1D4ED8))
        y += 22
      }
    }
    canvas.drawText("Quick fox 42", at: Point(x: 8, y: y + 4), scale: 3, color: .black)
    return canvas.image
  }
}
