import ReferenceImageCore

/// The layout bar and line charts share: a title on top, a value axis with grid lines on the
/// left, room for category labels below.
struct CartesianFrame {
  /// The plotting area; tick lines fall on whole pixel rows inside it.
  let plot: Rect
  /// The value axis.
  let scale: AxisScale

  static let margin = 16.0
  static let titleScale = 2

  init(width: Int, height: Int, title: String, scale: AxisScale, topInset: Double = 0) {
    self.scale = scale
    let labelWidth = scale.ticks.map { BitmapFont.width(of: scale.label(for: $0)) }.max() ?? 0
    let left = Self.margin + Double(labelWidth) + 8
    var top = Self.margin + topInset
    if !title.isEmpty { top += Double(BitmapFont.capHeight * Self.titleScale) + 14 }
    let bottom = Double(height) - Self.margin - Double(BitmapFont.lineHeight) - 6
    // A height that is a whole multiple of the interval count puts every tick on a pixel edge.
    let intervals = Double(scale.ticks.count - 1)
    let plotHeight = ((bottom - top) / intervals).rounded(.down) * intervals
    plot = Rect(
      x: left, y: bottom - plotHeight, width: Double(width) - Self.margin - left,
      height: plotHeight)
  }

  /// The canvas `y` of a value.
  func y(_ value: Double) -> Double {
    plot.maxY - scale.fraction(of: value) * plot.height
  }

  /// Draws the title, the grid lines with their labels, and the baseline.
  func drawAxes(title: String, on canvas: inout Canvas, theme: Theme) {
    if !title.isEmpty {
      canvas.drawText(
        title, at: Point(x: Double(canvas.width) / 2, y: Self.margin), scale: Self.titleScale,
        alignment: .center, color: theme.title)
    }
    for tick in scale.ticks {
      let row = y(tick).rounded()
      let line = Rect(x: plot.x, y: row - 1, width: plot.width, height: 1)
      canvas.fillRect(line, .solid(abs(tick) < scale.step / 2 ? theme.axis : theme.grid))
      canvas.drawText(
        scale.label(for: tick), at: Point(x: plot.x - 8, y: row - 4), alignment: .right,
        color: theme.label)
    }
  }

  /// Draws a category label centred under `x`.
  func drawCategory(_ label: String, x: Double, on canvas: inout Canvas, theme: Theme) {
    canvas.drawText(
      label, at: Point(x: x, y: plot.maxY + 8), alignment: .center, color: theme.label)
  }
}
