import ReferenceImageCore

/// What fills a shape: one colour or a gradient.
public enum Paint: Sendable, Hashable {
  /// One colour everywhere; its alpha makes the shape translucent.
  case solid(RGBAColor)
  /// A colour that varies along a line.
  case linearGradient(LinearGradient)

  /// The colour at a point.
  func color(at point: Point) -> RGBAColor {
    switch self {
    case .solid(let color): return color
    case .linearGradient(let gradient): return gradient.color(at: point)
    }
  }
}
