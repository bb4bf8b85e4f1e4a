import ReferenceImageCore

/// The colours a chart draws with, so one chart can render in several looks.
public struct Theme: Sendable, Hashable {
  /// The colour behind everything.
  public var background: RGBAColor
  /// Grid lines inside the plot.
  public var grid: RGBAColor
  /// The axis lines.
  public var axis: RGBAColor
  /// Titles.
  public var title: RGBAColor
  /// Tick labels and legends.
  public var label: RGBAColor
  /// The series colours, used in order and repeated when there are more series.
  public var palette: [RGBAColor]

  /// Creates a theme.
  /// - Parameters:
  ///   - background: The colour behind everything.
  ///   - grid: Grid lines inside the plot.
  ///   - axis: The axis lines.
  ///   - title: Titles.
  ///   - label: Tick labels and legends.
  ///   - palette: The series colours; at least one.
  public init(
    background: RGBAColor, grid: RGBAColor, axis: RGBAColor, title: RGBAColor,
    label: RGBAColor, palette: [RGBAColor]
  ) {
    precondition(!palette.isEmpty, "a theme needs at least one series colour")
    self.background = background
    self.grid = grid
    self.axis = axis
    self.title = title
    self.label = label
    self.palette = palette
  }

  /// The colour of the series at `index`, cycling through the palette.
  /// - Parameter index: The series index, 0 or more.
  /// - Returns: A palette colour.
  public func color(at index: Int) -> RGBAColor {
    palette[index % palette.count]
  }

  /// Dark text on white, with a saturated palette.
  public static let light = Theme(
    background: .white, grid: RGBAColor(hex: 0xE5E7EB), axis: RGBAColor(hex: 0x6B7280),
    title: RGBAColor(hex: 0x111827), label: RGBAColor(hex: 0x4B5563),
    palette: [0x3B82F6, 0xF59E0B, 0x10B981, 0xEF4444, 0x8B5CF6, 0x06B6D4].map {
      RGBAColor(hex: $0)
    })

  /// Light text on a slate background, with a brighter palette.
  public static let dark = Theme(
    background: RGBAColor(hex: 0x0F172A), grid: RGBAColor(hex: 0x1E293B),
    axis: RGBAColor(hex: 0x64748B), title: RGBAColor(hex: 0xF1F5F9),
    label: RGBAColor(hex: 0x94A3B8),
    palette: [0x60A5FA, 0xFBBF24, 0x34D399, 0xF87171, 0xA78BFA, 0x22D3EE].map {
      RGBAColor(hex: $0)
    })
}
