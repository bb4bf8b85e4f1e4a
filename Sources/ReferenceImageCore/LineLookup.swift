/// The colours of the (at most two) runs that carry a line into a column or row of a region
/// from outside, in the order they are looked at: from above (or the left), then from below
/// (or the right). A value, so asking costs no allocation.
struct LineEnds {
  let before: UInt32?
  let after: UInt32?

  init(_ before: UInt32?, _ after: UInt32?) {
    self.before = before
    self.after = after
  }

  /// The first colour, in order, that satisfies `predicate`.
  @inline(__always) func first(where predicate: (UInt32) -> Bool) -> UInt32? {
    if let before, predicate(before) { return before }
    if let after, predicate(after) { return after }
    return nil
  }

  @inline(__always) func contains(where predicate: (UInt32) -> Bool) -> Bool {
    first(where: predicate) != nil
  }
}

/// One region's answers about lines that stay put (`RegionJudge`), each computed once: the
/// line ends of every column and row of the region's box and of the margin a shift reaches,
/// and whether a line runs on through each pixel there. A move is tried at up to 80 offsets,
/// and each asks about the same few pixels and their neighbours, so without it a region pays
/// for the same walks along the same lines at every offset.
///
/// Belongs to one region judged on one thread. Costs a few bytes per column and row when
/// made; the pixels' answers, a byte per pixel of the grown box, only once a pixel is asked
/// about. Places outside the grown box are answered without being kept.
final class LineLookup {
  private let minX: Int
  private let minY: Int
  private let width: Int
  private let height: Int
  private var columns: [LineEnds?]
  private var rows: [LineEnds?]
  /// Per pixel of the grown box, row by row: 0 not asked yet, 1 no line, 2 a line.
  private var pixels: [UInt8] = []

  /// - Parameters:
  ///   - box: The region's box.
  ///   - margin: How far around it answers are kept.
  init(around box: PixelBox, margin: Int) {
    minX = box.minX - margin
    minY = box.minY - margin
    width = box.maxX - box.minX + 1 + 2 * margin
    height = box.maxY - box.minY + 1 + 2 * margin
    columns = Array(repeating: nil, count: width)
    rows = Array(repeating: nil, count: height)
  }

  /// The line ends of column `x`, from `compute` the first time.
  @inline(__always) func column(_ x: Int, _ compute: () -> LineEnds) -> LineEnds {
    let index = x - minX
    guard index >= 0, index < width else { return compute() }
    if let known = columns[index] { return known }
    let ends = compute()
    columns[index] = ends
    return ends
  }

  /// The line ends of row `y`, from `compute` the first time.
  @inline(__always) func row(_ y: Int, _ compute: () -> LineEnds) -> LineEnds {
    let index = y - minY
    guard index >= 0, index < height else { return compute() }
    if let known = rows[index] { return known }
    let ends = compute()
    rows[index] = ends
    return ends
  }

  /// Whether a line runs on through (x, y), from `compute` the first time. Every caller asks
  /// with the same background, so the answer is the pixel's.
  @inline(__always) func throughPixel(_ x: Int, _ y: Int, _ compute: () -> Bool) -> Bool {
    let (column, row) = (x - minX, y - minY)
    guard column >= 0, column < width, row >= 0, row < height else { return compute() }
    if pixels.isEmpty { pixels = [UInt8](repeating: 0, count: width * height) }
    let index = row * width + column
    switch pixels[index] {
    case 1: return false
    case 2: return true
    default:
      let through = compute()
      pixels[index] = through ? 2 : 1
      return through
    }
  }
}
