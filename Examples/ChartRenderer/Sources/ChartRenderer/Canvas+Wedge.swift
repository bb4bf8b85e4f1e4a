import ReferenceImageCore

extension Canvas {
  /// Fills a pie slice (or a ring segment when `innerRadius` is positive).
  ///
  /// Angles are fractions of a full turn measured clockwise from twelve o'clock, so a pie chart
  /// passes cumulative shares directly: a slice of 25 % starting at the top spans `0..<0.25`.
  /// - Parameters:
  ///   - center: The centre of the circle.
  ///   - radius: The outer radius.
  ///   - innerRadius: The radius of the hole; 0 for a pie slice.
  ///   - start: The starting angle in turns.
  ///   - end: The ending angle in turns, clockwise after `start`; a span of 1 fills the ring.
  ///   - paint: The colour or gradient.
  public mutating func fillWedge(
    center: Point, radius: Double, innerRadius: Double = 0, from start: Double, to end: Double,
    _ paint: Paint
  ) {
    let span = end - start
    guard span > 0, radius > 0 else { return }
    // Unit directions of the two edges; (sin, -cos) points up at 0 and turns clockwise on a
    // screen whose y axis grows downwards.
    let first = Turns.cosSin(start)
    let last = Turns.cosSin(end)
    let startX = first.sin
    let startY = -first.cos
    let endX = last.sin
    let endY = -last.cos
    fill(bounds: Self.square(center, radius + 1), paint: paint) { x, y in
      let px = Double(x) + 0.5 - center.x
      let py = Double(y) + 0.5 - center.y
      let distance = (px * px + py * py).squareRoot()
      var coverage = min(
        Self.coverage(distance: distance - radius), Self.coverage(distance: innerRadius - distance))
      guard span < 1, coverage > 0 else { return coverage }
      // Signed distances to the edge lines, positive on the slice's side of each.
      let afterStart = startX * py - startY * px
      let beforeEnd = endY * px - endX * py
      let inStart = Self.coverage(distance: -afterStart)
      let inEnd = Self.coverage(distance: -beforeEnd)
      // A slice narrower than half a turn is the intersection of two half-planes, a wider one
      // their union.
      coverage = min(coverage, span <= 0.5 ? min(inStart, inEnd) : max(inStart, inEnd))
      return coverage
    }
  }
}
