import ReferenceImageCore

/// A pie (or donut) chart with a legend of labels and percentages.
///
/// ```swift
/// let image = try PieChart(
///   title: "Test outcomes", slices: [.init(label: "passed", value: 412), .init(label: "failed", value: 9)]
/// ).render()
/// ```
public struct PieChart: Sendable {
  /// One slice.
  public struct Slice: Sendable, Hashable {
    /// The name in the legend.
    public var label: String
    /// The slice's amount; zero, negative and non-finite amounts get no slice.
    public var value: Double

    /// Creates a slice.
    /// - Parameters:
    ///   - label: The name in the legend.
    ///   - value: The amount.
    public init(label: String, value: Double) {
      self.label = label
      self.value = value
    }
  }

  /// The text above the chart; empty for none.
  public var title: String
  /// The slices, clockwise from twelve o'clock.
  public var slices: [Slice]
  /// The image width in pixels.
  public var width: Int
  /// The image height in pixels.
  public var height: Int
  /// The colours.
  public var theme: Theme
  /// Whether the pie has a hole showing the total.
  public var isDonut: Bool

  /// Creates a pie chart.
  /// - Parameters:
  ///   - title: The text above the chart; empty for none.
  ///   - slices: The slices, clockwise from twelve o'clock.
  ///   - width: The image width in pixels.
  ///   - height: The image height in pixels.
  ///   - theme: The colours.
  ///   - isDonut: Whether the pie has a hole showing the total.
  public init(
    title: String, slices: [Slice], width: Int = 400, height: Int = 260, theme: Theme = .light,
    isDonut: Bool = false
  ) {
    self.title = title
    self.slices = slices
    self.width = width
    self.height = height
    self.theme = theme
    self.isDonut = isDonut
  }

  /// Draws the chart.
  /// - Returns: A `width`×`height` image, the same bytes for the same chart on every machine.
  /// - Throws: `ImageError.invalidSize` when `width` or `height` is not a valid image size.
  public func render() throws(ImageError) -> RGBAImage {
    var canvas = try Canvas(width: width, height: height, background: theme.background)
    let margin = 16.0
    var top = margin
    if !title.isEmpty {
      canvas.drawText(
        title, at: Point(x: Double(width) / 2, y: margin), scale: 2, alignment: .center,
        color: theme.title)
      top += 28
    }
    let radius = max(4, min((Double(height) - top - margin) / 2, Double(width) / 4))
    let center = Point(x: margin + radius, y: top + radius)
    let inner = isDonut ? radius * 0.55 : 0
    let total = slices.reduce(0) { $0 + Self.amount($1) }
    var start = 0.0
    var edges: [Double] = []
    for (index, slice) in slices.enumerated() where total > 0 && Self.amount(slice) > 0 {
      let end = start + Self.amount(slice) / total
      canvas.fillWedge(
        center: center, radius: radius, innerRadius: inner, from: start, to: end,
        .solid(theme.color(at: index)))
      edges.append(start)
      start = end
    }
    // Gaps in the background colour between slices: they separate similar colours and hide
    // the faint seam two anti-aliased edges would leave.
    for edge in edges where edges.count > 1 {
      let direction = Turns.cosSin(edge)
      let outer = Point(
        x: center.x + direction.sin * (radius + 1), y: center.y - direction.cos * (radius + 1))
      canvas.strokeLine(from: center, to: outer, lineWidth: 2, .solid(theme.background))
    }
    if isDonut {
      canvas.fillCircle(center: center, radius: inner + 0.5, .solid(theme.background))
      canvas.drawText(
        AxisScale.format(total, fractionDigits: 0), at: Point(x: center.x, y: center.y - 7),
        scale: 2, alignment: .center, color: theme.title)
    }
    drawLegend(on: &canvas, left: center.x + radius + 28, centerY: center.y, total: total)
    return canvas.image
  }

  private func drawLegend(on canvas: inout Canvas, left: Double, centerY: Double, total: Double) {
    let rowHeight = 20.0
    var y = (centerY - rowHeight * Double(slices.count) / 2).rounded()
    for (index, slice) in slices.enumerated() {
      canvas.fillRoundedRect(
        Rect(x: left, y: y, width: 12, height: 12), radius: 3, .solid(theme.color(at: index)))
      let share = total > 0 ? Self.amount(slice) / total * 100 : 0
      canvas.drawText(
        slice.label, at: Point(x: left + 20, y: y + 2), color: theme.label)
      canvas.drawText(
        AxisScale.format(share, fractionDigits: 1) + "%",
        at: Point(x: Double(width) - 16, y: y + 2),
        alignment: .right, color: theme.title)
      y += rowHeight
    }
  }

  private static func amount(_ slice: Slice) -> Double {
    slice.value.isFinite && slice.value > 0 ? slice.value : 0
  }
}
