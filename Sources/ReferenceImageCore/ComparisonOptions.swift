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
  }

  let distance: Int
  let rule: Rule

  init(distance: Int, criterion: ImageComparison.Criterion) {
    self.distance = distance
    switch criterion {
    case .exact: rule = .exact
    case .tolerance(let tolerance): rule = .tolerance(tolerance)
    case .perceptual(let threshold, _):
      rule = .perceptual(maximumDelta: ImageComparison.maximumDelta(threshold: threshold))
    }
  }

  /// Whether the pixel at `index` matches a shifted pixel both ways.
  @inline(never)
  func matches(_ scan: PixelScan, _ index: Int) -> Bool {
    let y = index / scan.width
    let x = index &- y &* scan.width
    return hasCounterpart(scan.actual, index, in: scan.reference, x, y, scan)
      && hasCounterpart(scan.reference, index, in: scan.actual, x, y, scan)
  }

  /// Whether `image`'s pixel at (x, y) matches a pixel of `other` at most `distance` away
  /// (its own position excluded: there the two differ).
  private func hasCounterpart(
    _ image: UnsafePointer<UInt32>, _ index: Int, in other: UnsafePointer<UInt32>, _ x: Int,
    _ y: Int, _ scan: PixelScan
  ) -> Bool {
    let top = max(y - distance, 0)
    let bottom = min(y + distance, scan.height - 1)
    let left = max(x - distance, 0)
    let right = min(x + distance, scan.width - 1)
    for row in top...bottom {
      for column in left...right where row != y || column != x {
        if same(image, index, other, row &* scan.width &+ column) { return true }
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

  private func largestChannelDifference(_ a: UInt32, _ b: UInt32) -> Int {
    var largest = 0
    for shift in stride(from: 0, to: 32, by: 8) {
      let difference = abs(Int((a >> UInt32(shift)) & 0xFF) - Int((b >> UInt32(shift)) & 0xFF))
      largest = max(largest, difference)
    }
    return largest
  }
}
