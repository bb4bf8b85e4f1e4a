import ReferenceImageCore

/// A line chart: one or more series over shared categories, with grid, dots and a legend.
///
/// ```swift
/// let image = try LineChart(
///   title: "Test time (s)", categories: ["1", "2", "3"],
///   series: [.init(name: "Linux", values: [41, 38, 44])]
/// ).render()
/// ```
public struct LineChart: Sendable {
  /// One line of the chart.
  public struct Series: Sendable, Hashable {
    /// The name in the legend.
    public var name: String
    /// One value per category; extra values are ignored, non-finite ones break the line.
    public var values: [Double]

    /// Creates a series.
    /// - Parameters:
    ///   - name: The name in the legend.
    ///   - values: One value per category.
    public init(name: String, values: [Double]) {
      self.name = name
      self.values = values
    }
  }

  /// The text above the chart; empty for none.
  public var title: String
  /// The labels along the horizontal axis, one per point.
  public var categories: [String]
  /// The lines, drawn in order with the theme's palette.
  public var series: [Series]
  /// The image width in pixels.
  public var width: Int
  /// The image height in pixels.
  public var height: Int
  /// The colours.
  public var theme: Theme
  /// The stroke width of the lines in pixels.
  public var lineWidth: Double
  /// Whether each point gets a dot.
  public var showsDots: Bool
  /// Whether the first series gets a fading area underneath.
  public var fillsArea: Bool

  /// Creates a line chart.
  /// - Parameters:
  ///   - title: The text above the chart; empty for none.
  ///   - categories: The labels along the horizontal axis.
  ///   - series: The lines.
  ///   - width: The image width in pixels.
  ///   - height: The image height in pixels.
  ///   - theme: The colours.
  ///   - lineWidth: The stroke width in pixels.
  ///   - showsDots: Whether each point gets a dot.
  ///   - fillsArea: Whether the first series gets a fading area underneath.
  public init(
    title: String, categories: [String], series: [Series], width: Int = 480, height: Int = 300,
    theme: Theme = .light, lineWidth: Double = 2.5, showsDots: Bool = true, fillsArea: Bool = true
  ) {
    self.title = title
    self.categories = categories
    self.series = series
    self.width = width
    self.height = height
    self.theme = theme
    self.lineWidth = lineWidth
    self.showsDots = showsDots
    self.fillsArea = fillsArea
  }

  /// Draws the chart.
  /// - Returns: A `width`×`height` image, the same bytes for the same chart on every machine.
  /// - Throws: `ImageError.invalidSize` when `width` or `height` is not a valid image size.
  public func render() throws(ImageError) -> RGBAImage {
    var canvas = try Canvas(width: width, height: height, background: theme.background)
    let values = series.flatMap { $0.values.prefix(categories.count) }
    let frame = CartesianFrame(
      width: width, height: height, title: title,
      scale: AxisScale(covering: values, includesZero: false), topInset: 16)
    frame.drawAxes(title: title, on: &canvas, theme: theme)
    drawLegend(on: &canvas, top: frame.plot.y - 20)
    let count = categories.count
    guard count > 0 else { return canvas.image }
    // Points sit in the middle of equal slots, so the first and last keep clear of the edges.
    let slot = frame.plot.width / Double(count)
    func x(_ index: Int) -> Double { frame.plot.x + slot * (Double(index) + 0.5) }
    // Skip labels evenly when they would collide.
    let widest = categories.map { BitmapFont.width(of: $0) + 8 }.max() ?? 1
    let every = max(1, Int((Double(widest) / slot).rounded(.up)))
    for (index, label) in categories.enumerated() where index % every == 0 {
      frame.drawCategory(label, x: x(index), on: &canvas, theme: theme)
    }
    for (index, line) in series.enumerated() {
      let color = theme.color(at: index)
      // Split at non-finite values: a gap in the data is a gap in the line.
      var runs: [[Point]] = [[]]
      for (column, value) in line.values.prefix(count).enumerated() {
        if value.isFinite {
          runs[runs.count - 1].append(Point(x: x(column), y: frame.y(value)))
        } else if !runs[runs.count - 1].isEmpty {
          runs.append([])
        }
      }
      for run in runs where !run.isEmpty {
        if fillsArea && index == 0 { fillArea(run, color: color, frame: frame, on: &canvas) }
        canvas.strokePolyline(run, lineWidth: lineWidth, .solid(color))
        guard showsDots else { continue }
        for point in run {
          canvas.fillCircle(center: point, radius: lineWidth + 1.5, .solid(color))
          canvas.fillCircle(center: point, radius: lineWidth * 0.5 + 0.5, .solid(theme.background))
        }
      }
    }
    return canvas.image
  }

  private func fillArea(
    _ run: [Point], color: RGBAColor, frame: CartesianFrame, on canvas: inout Canvas
  ) {
    let top = run.map(\.y).min() ?? frame.plot.y
    let gradient = LinearGradient(
      start: Point(x: 0, y: top), end: Point(x: 0, y: frame.plot.maxY),
      from: color.withAlpha(90), to: color.withAlpha(0))
    canvas.fillArea(under: run, baseline: frame.plot.maxY - 1, .linearGradient(gradient))
  }

  /// Draws a swatch and name per series, right-aligned above the plot.
  private func drawLegend(on canvas: inout Canvas, top: Double) {
    guard series.count > 1 || !(series.first?.name.isEmpty ?? true) else { return }
    var right = Double(width) - CartesianFrame.margin
    for (index, line) in series.enumerated().reversed() {
      canvas.drawText(
        line.name, at: Point(x: right, y: top), alignment: .right, color: theme.label)
      right -= Double(BitmapFont.width(of: line.name)) + 8
      canvas.fillRoundedRect(
        Rect(x: right - 12, y: top + 2, width: 12, height: 3), radius: 1.5,
        .solid(theme.color(at: index)))
      right -= 12 + 16
    }
  }
}
