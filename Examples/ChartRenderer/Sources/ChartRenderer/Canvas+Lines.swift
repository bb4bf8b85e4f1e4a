import ReferenceImageCore

extension Canvas {
  /// Strokes a straight line with round caps.
  /// - Parameters:
  ///   - start: Where the line starts.
  ///   - end: Where the line ends.
  ///   - lineWidth: The width in pixels; widths below one pixel draw fainter rather than thinner.
  ///   - paint: The colour or gradient.
  public mutating func strokeLine(
    from start: Point, to end: Point, lineWidth: Double, _ paint: Paint
  ) {
    strokePolyline([start, end], lineWidth: lineWidth, paint)
  }

  /// Strokes connected line segments with round joins and caps.
  ///
  /// The segments share one coverage mask (each pixel keeps its largest coverage), so joins are
  /// blended once: a translucent polyline shows no darker knots where segments meet.
  /// - Parameters:
  ///   - points: The vertices in order; one point draws a dot of diameter `lineWidth`.
  ///   - lineWidth: The width in pixels.
  ///   - paint: The colour or gradient.
  public mutating func strokePolyline(_ points: [Point], lineWidth: Double, _ paint: Paint) {
    guard !points.isEmpty, lineWidth > 0, points.allSatisfy(\.isFinite) else { return }
    let half = lineWidth / 2
    guard var mask = CoverageMask(covering: Self.boundingBox(points, margin: half + 1), in: self)
    else { return }
    // A lone point pairs with itself: a zero-length segment whose capsule is a dot.
    let ends = points.count == 1 ? points : Array(points.dropFirst())
    for (a, b) in zip(points, ends) {
      mask.formMax(over: Self.boundingBox([a, b], margin: half + 1)) { x, y in
        Self.coverage(distance: Self.segmentDistance(x, y, a, b) - half)
      }
    }
    fill(mask, paint)
  }

  /// Fills the area between a polyline and a horizontal baseline, as under a line chart.
  /// - Parameters:
  ///   - points: The vertices, ordered by increasing `x`.
  ///   - baseline: The `y` the area reaches down (or up) to.
  ///   - paint: The colour or gradient; a gradient that fades out reads best.
  public mutating func fillArea(under points: [Point], baseline: Double, _ paint: Paint) {
    guard points.count >= 2, let first = points.first, let last = points.last else { return }
    let box = Self.boundingBox(points + [Point(x: first.x, y: baseline)], margin: 0)
    var segment = 0
    fill(bounds: box, paint: paint) { x, y in
      let centerX = Double(x) + 0.5
      let horizontal = Self.overlap(Double(x), first.x, last.x)
      guard horizontal > 0 else { return 0 }
      // Pixels arrive row by row, left to right: restart the segment search on each new row.
      if centerX < points[segment].x { segment = 0 }
      while segment + 2 < points.count, points[segment + 1].x < centerX { segment += 1 }
      let a = points[segment]
      let b = points[segment + 1]
      let t = b.x > a.x ? min(max((centerX - a.x) / (b.x - a.x), 0), 1) : 0
      let lineY = a.y + (b.y - a.y) * t
      return horizontal * Self.overlap(Double(y), min(lineY, baseline), max(lineY, baseline))
    }
  }

  /// Blends a coverage mask.
  mutating func fill(_ mask: CoverageMask, _ paint: Paint) {
    fill(bounds: mask.bounds, paint: paint) { x, y in mask[x, y] }
  }

  /// The distance from a pixel centre to the segment from `a` to `b`.
  static func segmentDistance(_ x: Int, _ y: Int, _ a: Point, _ b: Point) -> Double {
    let px = Double(x) + 0.5 - a.x
    let py = Double(y) + 0.5 - a.y
    let bx = b.x - a.x
    let by = b.y - a.y
    let lengthSquared = bx * bx + by * by
    let t = lengthSquared > 0 ? min(max((px * bx + py * by) / lengthSquared, 0), 1) : 0
    let dx = px - bx * t
    let dy = py - by * t
    return (dx * dx + dy * dy).squareRoot()
  }

  /// The smallest rectangle holding every point, grown by `margin`.
  static func boundingBox(_ points: [Point], margin: Double) -> Rect {
    var minX = Double.infinity
    var minY = Double.infinity
    var maxX = -Double.infinity
    var maxY = -Double.infinity
    for point in points {
      minX = min(minX, point.x)
      minY = min(minY, point.y)
      maxX = max(maxX, point.x)
      maxY = max(maxY, point.y)
    }
    return Rect(
      x: minX - margin, y: minY - margin, width: maxX - minX + 2 * margin,
      height: maxY - minY + 2 * margin)
  }
}
