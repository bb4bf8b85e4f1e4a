/// Per-pixel coverage for a region of a canvas, so overlapping parts of one shape (the segments
/// of a polyline) combine by maximum and blend once.
struct CoverageMask {
  let x0: Int
  let y0: Int
  let width: Int
  let height: Int
  private var values: [Double]

  /// A zero mask over the whole pixels `rect` touches inside `canvas`; `nil` when none.
  init?(covering rect: Rect, in canvas: Canvas) {
    let left = max(rect.x, 0)
    let top = max(rect.y, 0)
    let right = min(rect.maxX, Double(canvas.width))
    let bottom = min(rect.maxY, Double(canvas.height))
    guard left < right, top < bottom else { return nil }
    x0 = Int(left.rounded(.down))
    y0 = Int(top.rounded(.down))
    width = Int(right.rounded(.up)) - x0
    height = Int(bottom.rounded(.up)) - y0
    values = [Double](repeating: 0, count: width * height)
  }

  /// The region in canvas coordinates.
  var bounds: Rect {
    Rect(x: Double(x0), y: Double(y0), width: Double(width), height: Double(height))
  }

  /// The coverage of the canvas pixel at `(x, y)`; 0 outside the mask.
  subscript(x: Int, y: Int) -> Double {
    guard x >= x0, x < x0 + width, y >= y0, y < y0 + height else { return 0 }
    return values[(y - y0) * width + (x - x0)]
  }

  /// Raises each pixel of `rect` (clipped to the mask) to `coverage(x, y)` where that is larger.
  mutating func formMax(over rect: Rect, _ coverage: (Int, Int) -> Double) {
    // Clamp while still floating point: an infinite or huge edge must not reach `Int(_:)`.
    let left = Int(max(rect.x, Double(x0)).rounded(.down))
    let top = Int(max(rect.y, Double(y0)).rounded(.down))
    let right = Int(min(rect.maxX, Double(x0 + width)).rounded(.up))
    let bottom = Int(min(rect.maxY, Double(y0 + height)).rounded(.up))
    guard left < right, top < bottom else { return }
    for y in top..<bottom {
      for x in left..<right {
        let index = (y - y0) * width + (x - x0)
        values[index] = max(values[index], coverage(x, y))
      }
    }
  }
}
