import ReferenceImageCore

extension Canvas {
  /// Fills a rectangle with exact area coverage: edges on whole pixels stay crisp, fractional
  /// edges blend their partial pixels.
  /// - Parameters:
  ///   - rect: The rectangle.
  ///   - paint: The colour or gradient.
  public mutating func fillRect(_ rect: Rect, _ paint: Paint) {
    fill(bounds: rect, paint: paint) { x, y in
      Self.overlap(Double(x), rect.x, rect.maxX) * Self.overlap(Double(y), rect.y, rect.maxY)
    }
  }

  /// Fills a rectangle with rounded corners.
  /// - Parameters:
  ///   - rect: The rectangle.
  ///   - radius: The corner radius, clamped to half the shorter side (which makes a pill).
  ///   - paint: The colour or gradient.
  public mutating func fillRoundedRect(_ rect: Rect, radius: Double, _ paint: Paint) {
    let radius = max(0, min(radius, rect.width / 2, rect.height / 2))
    fill(bounds: rect, paint: paint) { x, y in
      Self.coverage(distance: Self.roundedRectDistance(x, y, rect, radius))
    }
  }

  /// Strokes the outline of a rectangle with rounded corners, centred on its edge.
  /// - Parameters:
  ///   - rect: The rectangle.
  ///   - radius: The corner radius, clamped to half the shorter side.
  ///   - lineWidth: The stroke width in pixels.
  ///   - paint: The colour or gradient.
  public mutating func strokeRoundedRect(
    _ rect: Rect, radius: Double, lineWidth: Double, _ paint: Paint
  ) {
    let radius = max(0, min(radius, rect.width / 2, rect.height / 2))
    fill(bounds: rect.insetBy(-lineWidth / 2 - 1), paint: paint) { x, y in
      let distance = Self.roundedRectDistance(x, y, rect, radius)
      return Self.coverage(distance: abs(distance) - lineWidth / 2)
    }
  }

  /// Fills a circle.
  /// - Parameters:
  ///   - center: The centre.
  ///   - radius: The radius in pixels.
  ///   - paint: The colour or gradient.
  public mutating func fillCircle(center: Point, radius: Double, _ paint: Paint) {
    fill(bounds: Self.square(center, radius + 1), paint: paint) { x, y in
      Self.coverage(distance: Self.distance(x, y, center) - radius)
    }
  }

  /// Strokes a circle's outline, centred on the circle.
  /// - Parameters:
  ///   - center: The centre.
  ///   - radius: The radius of the stroke's middle.
  ///   - lineWidth: The stroke width in pixels.
  ///   - paint: The colour or gradient.
  public mutating func strokeCircle(
    center: Point, radius: Double, lineWidth: Double, _ paint: Paint
  ) {
    fill(bounds: Self.square(center, radius + lineWidth / 2 + 1), paint: paint) { x, y in
      Self.coverage(distance: abs(Self.distance(x, y, center) - radius) - lineWidth / 2)
    }
  }

  /// Fills the ellipse inscribed in a rectangle.
  /// - Parameters:
  ///   - rect: The bounding rectangle.
  ///   - paint: The colour or gradient.
  public mutating func fillEllipse(in rect: Rect, _ paint: Paint) {
    let rx = rect.width / 2
    let ry = rect.height / 2
    guard rx > 0, ry > 0 else { return }
    let center = rect.center
    fill(bounds: rect.insetBy(-1), paint: paint) { x, y in
      // The implicit function divided by its gradient length: the distance to first order,
      // exact on a circle and close enough for a one-pixel ramp on any ellipse.
      let px = (Double(x) + 0.5 - center.x) / rx
      let py = (Double(y) + 0.5 - center.y) / ry
      let k0 = (px * px + py * py).squareRoot()
      let gx = px / rx
      let gy = py / ry
      let k1 = (gx * gx + gy * gy).squareRoot()
      guard k1 > 0 else { return 1 }
      return Self.coverage(distance: k0 * (k0 - 1) / k1)
    }
  }

  /// The signed distance from a pixel centre to a rounded rectangle's edge, negative inside.
  static func roundedRectDistance(_ x: Int, _ y: Int, _ rect: Rect, _ radius: Double) -> Double {
    let center = rect.center
    let qx = abs(Double(x) + 0.5 - center.x) - rect.width / 2 + radius
    let qy = abs(Double(y) + 0.5 - center.y) - rect.height / 2 + radius
    let outsideX = max(qx, 0)
    let outsideY = max(qy, 0)
    return (outsideX * outsideX + outsideY * outsideY).squareRoot() + min(max(qx, qy), 0) - radius
  }

  /// The distance from a pixel centre to a point.
  static func distance(_ x: Int, _ y: Int, _ point: Point) -> Double {
    let dx = Double(x) + 0.5 - point.x
    let dy = Double(y) + 0.5 - point.y
    return (dx * dx + dy * dy).squareRoot()
  }

  /// The square of half-side `half` around `center`.
  static func square(_ center: Point, _ half: Double) -> Rect {
    Rect(x: center.x - half, y: center.y - half, width: 2 * half, height: 2 * half)
  }
}
