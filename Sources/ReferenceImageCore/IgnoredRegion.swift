/// A rectangle of pixels that a comparison does not look at: a clock, a random avatar, a
/// blinking cursor. Its pixels count neither as differing nor as compared, so a bound given
/// as a fraction (`requiredAccuracy`) is a fraction of the pixels outside every ignored region.
///
/// ```swift
/// let clock = IgnoredRegion(x: 700, y: 8, width: 92, height: 24)
/// assertImage(image, named: "dashboard", ignoring: [clock])
/// ```
///
/// A region may reach beyond the image: only its part inside the image is ignored.
public struct IgnoredRegion: Codable, Sendable, Hashable, CustomStringConvertible {
  /// The leftmost column.
  public var x: Int
  /// The top row.
  public var y: Int
  /// The width in pixels.
  public var width: Int
  /// The height in pixels.
  public var height: Int

  /// Creates a region from its top-left corner and size.
  /// - Parameters:
  ///   - x: The leftmost column.
  ///   - y: The top row.
  ///   - width: The width in pixels; a region of width or height 0 ignores nothing.
  ///   - height: The height in pixels.
  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  public var description: String { "x \(x), y \(y), \(width)×\(height)" }
}

/// The ignored regions of a comparison laid over one image size: for each run of rows, the
/// spans of columns that are compared. Built once per comparison, from a handful of rectangles,
/// so a scan skips ignored pixels a span at a time instead of testing each pixel.
struct PixelMask: Sendable {
  /// Rows that share the same compared spans.
  struct RowRun: Sendable {
    let rows: Range<Int>
    /// The compared columns, sorted, disjoint, non-empty.
    let compared: [Range<Int>]
  }

  let width: Int
  let runs: [RowRun]
  /// Pixels inside at least one region.
  let ignoredPixelCount: Int

  /// The mask of `regions` over a `width` × `height` image; nil when no region covers a pixel
  /// of it, so such a comparison takes the unmasked path.
  init?(_ regions: [IgnoredRegion], width: Int, height: Int) {
    let clipped = regions.compactMap { region -> (columns: Range<Int>, rows: Range<Int>)? in
      let left = max(region.x, 0)
      let right = min(region.x.addingClamped(region.width), width)
      let top = max(region.y, 0)
      let bottom = min(region.y.addingClamped(region.height), height)
      return right > left && bottom > top ? (left..<right, top..<bottom) : nil
    }
    guard !clipped.isEmpty else { return nil }
    var edges = Set([0, height])
    for box in clipped { edges.formUnion([box.rows.lowerBound, box.rows.upperBound]) }
    let sorted = edges.sorted()
    var runs: [RowRun] = []
    var ignored = 0
    for (top, bottom) in zip(sorted, sorted.dropFirst()) {
      let covering = clipped.filter { $0.rows.contains(top) }.map(\.columns)
      let compared = Self.complement(of: covering, width: width)
      let comparedCount = compared.reduce(0) { $0 + $1.count }
      ignored += (width - comparedCount) * (bottom - top)
      runs.append(RowRun(rows: top..<bottom, compared: compared))
    }
    self.width = width
    self.runs = runs
    ignoredPixelCount = ignored
  }

  /// The columns of `0..<width` that no range of `covered` holds.
  private static func complement(of covered: [Range<Int>], width: Int) -> [Range<Int>] {
    var compared: [Range<Int>] = []
    var start = 0
    for range in covered.sorted(by: { $0.lowerBound < $1.lowerBound }) {
      if range.lowerBound > start { compared.append(start..<range.lowerBound) }
      start = max(start, range.upperBound)
    }
    if start < width { compared.append(start..<width) }
    return compared
  }

  /// Calls `body` with the compared spans of each row of `rows`, as ranges of pixel indices.
  @inline(__always)
  func forEachComparedSpan(in rows: Range<Int>, _ body: (Range<Int>) -> Void) {
    for run in runs where run.rows.overlaps(rows) {
      for y in max(run.rows.lowerBound, rows.lowerBound)..<min(run.rows.upperBound, rows.upperBound)
      {
        let rowStart = y &* width
        for span in run.compared {
          body((rowStart &+ span.lowerBound)..<(rowStart &+ span.upperBound))
        }
      }
    }
  }

  /// Calls `body` with the ignored spans of each row of `rows`, as ranges of pixel indices.
  func forEachIgnoredSpan(in rows: Range<Int>, _ body: (Range<Int>) -> Void) {
    for run in runs where run.rows.overlaps(rows) {
      var ignored: [Range<Int>] = []
      var start = 0
      for span in run.compared {
        if span.lowerBound > start { ignored.append(start..<span.lowerBound) }
        start = span.upperBound
      }
      if start < width { ignored.append(start..<width) }
      for y in max(run.rows.lowerBound, rows.lowerBound)..<min(run.rows.upperBound, rows.upperBound)
      {
        let rowStart = y &* width
        for span in ignored { body((rowStart &+ span.lowerBound)..<(rowStart &+ span.upperBound)) }
      }
    }
  }
}

extension Int {
  /// The sum, or `Int.max` where it would overflow: a region may be given as reaching "to the
  /// end" with a huge width.
  fileprivate func addingClamped(_ other: Int) -> Int {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? (other > 0 ? .max : .min) : sum
  }
}
