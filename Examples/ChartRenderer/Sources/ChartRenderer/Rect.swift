/// An axis-aligned rectangle in canvas coordinates.
public struct Rect: Sendable, Hashable {
  /// The left edge.
  public var x: Double
  /// The top edge.
  public var y: Double
  /// The width; shapes with a width of zero or less draw nothing.
  public var width: Double
  /// The height; shapes with a height of zero or less draw nothing.
  public var height: Double

  /// Creates a rectangle from its top-left corner and size.
  /// - Parameters:
  ///   - x: The left edge.
  ///   - y: The top edge.
  ///   - width: The width.
  ///   - height: The height.
  public init(x: Double, y: Double, width: Double, height: Double) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// The right edge, `x + width`.
  public var maxX: Double { x + width }
  /// The bottom edge, `y + height`.
  public var maxY: Double { y + height }
  /// The centre point.
  public var center: Point { Point(x: x + width / 2, y: y + height / 2) }

  /// The rectangle shrunk by `amount` on every side (grown when `amount` is negative).
  /// - Parameter amount: The distance to move each edge inwards.
  /// - Returns: The inset rectangle.
  public func insetBy(_ amount: Double) -> Rect {
    Rect(x: x + amount, y: y + amount, width: width - 2 * amount, height: height - 2 * amount)
  }
}
