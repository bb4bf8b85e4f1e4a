/// One band of a perceptual comparison. Its state lives in a struct rather than in variables
/// captured by closures, which Swift would check for exclusive access on every pixel.
struct PerceptualBandScan {
  let scan: PixelScan
  let maximumDelta: Double
  let includeAntiAliasing: Bool
  var tally: DifferenceTally
  /// Clearly changed pixels waiting for the anti-aliasing detector. It reads the row below a
  /// pixel and the row below that (the darkest or brightest neighbour's own neighbours). Run as
  /// soon as the scan finds the pixel, those rows are not in cache yet, and each clearly
  /// changed pixel waits for main memory: about 0.35 µs a pixel, more than half the time on a
  /// 1%-changed 4 Mpx screenshot. So such pixels wait here until the scan has read the two rows
  /// below them; the verdicts do not depend on the order. They are at most three rows apart,
  /// so a ring (indexed by the counters masked to its power-of-two size) holds them all.
  let pending: UnsafeMutableBufferPointer<Int>
  var pendingHead = 0
  var pendingTail = 0

  /// A power of two above the most pixels that can wait at once: three rows and two more.
  static func pendingCapacity(width: Int) -> Int {
    1 << (Int.bitWidth - (3 * width + 2).leadingZeroBitCount)
  }

  /// - Parameter pending: Room for `pendingCapacity(width:)` indices, owned by the caller.
  init(
    scan: PixelScan, maximumDelta: Double, includeAntiAliasing: Bool,
    pending: UnsafeMutableBufferPointer<Int>
  ) {
    precondition(pending.count == Self.pendingCapacity(width: scan.width))
    self.scan = scan
    self.maximumDelta = maximumDelta
    self.includeAntiAliasing = includeAntiAliasing
    self.pending = pending
    tally = DifferenceTally(width: scan.width)
  }

  mutating func run() -> PixelDifferences {
    scan.forEachChangedPixel { index in visitChanged(index) }
    while pendingHead != pendingTail {
      classify(pending[pendingHead & (pending.count &- 1)])
      pendingHead &+= 1
    }
    return tally.result(totalPixelCount: scan.count)
  }

  @inline(__always)
  private mutating func visitChanged(_ index: Int) {
    tally.largestChannelDifference = max(
      tally.largestChannelDifference, scan.largestChannelDifference(at: index))
    let offset = index &* 4
    let delta = YIQ.colorDelta(
      scan.actualBytes, scan.referenceBytes, offset, offset, brightnessOnly: false)
    guard abs(delta) > maximumDelta else {
      tally.tolerated &+= 1
      scan.mark(index, .tolerated)
      return
    }
    if includeAntiAliasing {
      scan.countDiffering(index, &tally)
      return
    }
    let lag = 3 &* scan.width
    let mask = pending.count &- 1
    while pendingHead != pendingTail && pending[pendingHead & mask] < index &- lag {
      classify(pending[pendingHead & mask])
      pendingHead &+= 1
    }
    pending[pendingTail & mask] = index
    pendingTail &+= 1
  }

  private mutating func classify(_ index: Int) {
    let y = index / scan.width
    let x = index &- y &* scan.width
    if YIQ.isAntiAliasedInEither(scan, x, y) {
      tally.tolerated &+= 1
      tally.antiAliased &+= 1
      scan.mark(index, .antiAliased)
    } else {
      scan.countDiffering(index, &tally)
    }
  }
}
