/// What a comparison adds to its strategy: regions it ignores and how far a pixel may move.
struct ComparisonOptions: Sendable, Hashable {
  /// The largest shift tolerance: beyond a few pixels, a search finds a match for almost any
  /// pixel of a busy image and the comparison stops meaning anything.
  static let largestShift = 3

  var ignoredRegions: [IgnoredRegion] = []
  var shiftTolerance = 0

  /// ", ignoring 2 regions, shift tolerance 1", or nothing.
  var nameSuffix: String {
    var suffix = ""
    if !ignoredRegions.isEmpty {
      suffix += ", ignoring \(ignoredRegions.count) region\(ignoredRegions.count == 1 ? "" : "s")"
    }
    if shiftTolerance > 0 { suffix += ", shift tolerance \(shiftTolerance)" }
    return suffix
  }
}

/// Shift tolerance's search: whether a pixel that would count as differing has a counterpart
/// within `distance` pixels, both ways (the render's pixel near its position in the reference,
/// and the reference's near its position in the render). Runs only for such pixels, so a
/// comparison whose images are mostly equal pays nothing for the rest.
struct ShiftMatch: Sendable {
  /// When two pixels match, by the strategy's own rule.
  enum Rule: Sendable {
    case exact
    case tolerance(Int)
    case perceptual(maximumDelta: Double)

    var isExact: Bool {
      if case .exact = self { return true }
      return false
    }
  }

  let distance: Int
  let rule: Rule

  /// For each distance, every offset within it but (0, 0), nearest first: the four straight
  /// neighbours, then the diagonals, then further out. Shared and static: a `ShiftMatch` holds
  /// no reference, so testing whether a scan has one costs no reference counting on the
  /// plain comparison's path.
  static let offsetsByDistance: [[(dx: Int, dy: Int)]] = (0...ComparisonOptions.largestShift)
    .map { distance in
      let range = -distance...distance
      return range.flatMap { dy in range.map { dx in (dx: dx, dy: dy) } }
        .filter { $0 != (0, 0) }
        .sorted {
          (max(abs($0.dx), abs($0.dy)), abs($0.dx) + abs($0.dy))
            < (max(abs($1.dx), abs($1.dy)), abs($1.dx) + abs($1.dy))
        }
    }

  init(distance: Int, criterion: ImageComparison.Criterion) {
    self.distance = min(max(distance, 0), ComparisonOptions.largestShift)
    switch criterion {
    case .exact: rule = .exact
    case .tolerance(let tolerance): rule = .tolerance(tolerance)
    case .perceptual(let threshold, _):
      rule = .perceptual(maximumDelta: ImageComparison.maximumDelta(threshold: threshold))
    }
  }

  /// What one band's search remembers between pixels: the row of the last pixel (found
  /// without a division while the pixels stay in it) and, each way, the offset that matched
  /// last. Text or a line that moved moves as a whole, so the last offset is nearly always the
  /// next one, and a search usually costs one probe each way instead of up to eight.
  struct Hints {
    var rowStart = 0
    var rowEnd = 0
    var row = 0
    var actualOffset = (dx: 0, dy: 0)
    var referenceOffset = (dx: 0, dy: 0)
  }

  /// Whether the pixel at `index` matches a shifted pixel both ways.
  @inline(never)
  func matches(_ scan: PixelScan, _ index: Int, _ hints: inout Hints) -> Bool {
    if index >= hints.rowEnd || index < hints.rowStart {
      hints.row = index / scan.width
      hints.rowStart = hints.row &* scan.width
      hints.rowEnd = hints.rowStart &+ scan.width
    }
    let x = index &- hints.rowStart
    let y = hints.row
    return hasCounterpart(
      scan.actual, index, in: scan.reference, x, y, scan, hint: &hints.actualOffset)
      && hasCounterpart(
        scan.reference, index, in: scan.actual, x, y, scan, hint: &hints.referenceOffset)
  }

  /// Whether `image`'s pixel at (x, y) matches a pixel of `other` at most `distance` away
  /// (its own position excluded: there the two differ), trying `hint` first and keeping the
  /// offset that matched in it.
  @inline(__always)
  private func hasCounterpart(
    _ image: UnsafePointer<UInt32>, _ index: Int, in other: UnsafePointer<UInt32>, _ x: Int,
    _ y: Int, _ scan: PixelScan, hint: inout (dx: Int, dy: Int)
  ) -> Bool {
    let (width, height) = (scan.width, scan.height)
    let hintX = x &+ hint.dx
    let hintY = y &+ hint.dy
    if hint != (0, 0), hintX >= 0, hintX < width, hintY >= 0, hintY < height,
      same(image, index, other, hintY &* width &+ hintX)
    {
      return true
    }
    // Equal bytes first, nearest offsets first: moved content is usually copied exactly, and
    // a word comparison costs far less than the strategy's rule (a YIQ distance, say).
    let offsets = Self.offsetsByDistance[distance]
    for pass in 0..<(rule.isExact ? 1 : 2) {
      for offset in offsets {
        let column = x &+ offset.dx
        let row = y &+ offset.dy
        guard column >= 0, column < width, row >= 0, row < height else { continue }
        let position = row &* width &+ column
        let found =
          pass == 0 ? image[index] == other[position] : same(image, index, other, position)
        if found {
          hint = offset
          return true
        }
      }
    }
    return false
  }

  @inline(__always)
  private func same(
    _ image: UnsafePointer<UInt32>, _ index: Int, _ other: UnsafePointer<UInt32>, _ position: Int
  ) -> Bool {
    let word = image[index]
    let otherWord = other[position]
    if word == otherWord { return true }
    switch rule {
    case .exact:
      return false
    case .tolerance(let tolerance):
      return largestChannelDifference(word, otherWord) <= tolerance
    case .perceptual(let maximumDelta):
      let bytes = UnsafeRawPointer(image).assumingMemoryBound(to: UInt8.self)
      let otherBytes = UnsafeRawPointer(other).assumingMemoryBound(to: UInt8.self)
      // The checkerboard behind translucent pixels is the one at the pixel's own position.
      return abs(
        YIQ.colorDelta(bytes, otherBytes, index &* 4, position &* 4, brightnessOnly: false))
        <= maximumDelta
    }
  }

  /// The largest difference of the four channels of two packed pixels, all at once.
  @inline(__always)
  private func largestChannelDifference(_ a: UInt32, _ b: UInt32) -> Int {
    let first = unsafeBitCast(a, to: SIMD4<UInt8>.self)
    let second = unsafeBitCast(b, to: SIMD4<UInt8>.self)
    return Int((pointwiseMax(first, second) &- pointwiseMin(first, second)).max())
  }
}
