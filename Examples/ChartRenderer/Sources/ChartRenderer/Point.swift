/// A position in canvas coordinates: pixels, origin at the top-left corner, y growing downwards.
///
/// Pixel `(x, y)` covers the square from `(x, y)` to `(x + 1, y + 1)`, so its centre is at
/// `(x + 0.5, y + 0.5)`; drawing at integer coordinates lands shape edges between pixels.
public struct Point: Sendable, Hashable {
  /// The horizontal position in pixels.
  public var x: Double
  /// The vertical position in pixels, growing downwards.
  public var y: Double

  /// Creates a point.
  /// - Parameters:
  ///   - x: The horizontal position in pixels.
  ///   - y: The vertical position in pixels.
  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }

  /// Whether both coordinates are finite numbers (not infinite, not NaN).
  public var isFinite: Bool { x.isFinite && y.isFinite }
}
