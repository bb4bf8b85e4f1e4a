import ReferenceImageCore

/// A vertical bar chart: one bar per category, a value axis with grid lines, and a title.
///
/// ```swift
/// let image = try BarChart(
///   title: "Builds per day", values: [12, 19, 7, 23, 15], labels: ["Mon", "Tue", "Wed", "Thu", "Fri"]
/// ).render()
/// ```
public struct BarChart: Sendable {
  /// The text above the chart; empty for none.
  public var title: String
  /// One value per bar; negative values hang below the zero line.
  public var values: [Double]
  /// The category under each bar; missing labels are left blank.
  public var labels: [String]
  /// The image width in pixels.
  public var width: Int
  /// The image height in pixels.
  public var height: Int
  /// The colours.
  public var theme: Theme
  /// Whether each bar shows its value at its end.
  public var showsValues: Bool

  /// Creates a bar chart.
  /// - Parameters:
  ///   - title: The text above the chart; empty for none.
  ///   - values: One value per bar.
  ///   - labels: The category under each bar.
  ///   - width: The image width in pixels.
  ///   - height: The image height in pixels.
  ///   - theme: The colours.
  ///   - showsValues: Whether each bar shows its value at its end.
  public init(
    title: String, values: [Double], labels: [String], width: Int = 480, height: Int = 300,
    theme: Theme = .light, showsValues: Bool = true
  ) {
    self.title = title
    self.values = values
    self.labels = labels
    self.width = width
    self.height = height
    self.theme = theme
    self.showsValues = showsValues
  }

  /// Draws the chart.
  /// - Returns: A `width`×`height` image, the same bytes for the same chart on every machine.
  /// - Throws: `ImageError.invalidSize` when `width` or `height` is not a valid image size.
  public func render() throws(ImageError) -> RGBAImage {
    var canvas = try Canvas(width: width, height: height, background: theme.background)
    let frame = CartesianFrame(
      width: width, height: height, title: title, scale: AxisScale(covering: values))
    frame.drawAxes(title: title, on: &canvas, theme: theme)
    guard !values.isEmpty else { return canvas.image }
    let slot = frame.plot.width / Double(values.count)
    let barWidth = min(slot * 0.6, 48).rounded()
    let color = theme.color(at: 0)
    let zero = frame.y(0).rounded() - 1
    // Enough decimals for every value (up to two), so 1.8 does not print as 2.
    let valueDigits =
      (0...2).first { digits in
        values.allSatisfy {
          abs($0 * AxisScale.power(digits) - ($0 * AxisScale.power(digits)).rounded()) < 1e-6
        }
      } ?? 2
    for (index, value) in values.enumerated() where value.isFinite {
      let center = frame.plot.x + slot * (Double(index) + 0.5)
      let end = frame.y(value).rounded()
      // Whole-pixel sides keep the bars crisp.
      let bar = Rect(
        x: (center - barWidth / 2).rounded(), y: min(end, zero), width: barWidth,
        height: abs(zero - end))
      drawBar(bar, growsUp: value >= 0, color: color, on: &canvas)
      if index < labels.count {
        frame.drawCategory(labels[index], x: center, on: &canvas, theme: theme)
      }
      if showsValues {
        let text = AxisScale.format(value, fractionDigits: valueDigits)
        let textY = value >= 0 ? bar.y - 12 : bar.maxY + 5
        canvas.drawText(
          text, at: Point(x: center, y: textY), alignment: .center, color: theme.title)
      }
    }
    return canvas.image
  }

  /// A bar lit from its far end, rounded there and square on the zero line.
  private func drawBar(_ bar: Rect, growsUp: Bool, color: RGBAColor, on canvas: inout Canvas) {
    guard bar.height > 0 else { return }
    let light = LinearGradient.mix(color, .white, 0.25)
    let far = growsUp ? bar.y : bar.maxY
    let near = growsUp ? bar.maxY : bar.y
    let paint = Paint.linearGradient(
      LinearGradient(start: Point(x: 0, y: far), end: Point(x: 0, y: near), from: light, to: color))
    // Round only the far end: extend the shape past the zero line and clip it there, one
    // shape so no edge pixel blends twice.
    let radius = min(4, bar.height)
    let extended = Rect(
      x: bar.x, y: growsUp ? bar.y : bar.y - radius, width: bar.width,
      height: bar.height + radius)
    canvas.clipRect = bar
    canvas.fillRoundedRect(extended, radius: radius, paint)
    canvas.clipRect = nil
  }
}
