/// How one pixel position was classified by a comparison, painted on difference images.
enum PixelMark: UInt8 {
  case same = 0
  case tolerated = 1
  case antiAliased = 2
  case differing = 3
  /// Differing where it is, but matching a pixel nearby (shift tolerance).
  case shifted = 4
}

/// Two same-size pixel buffers under comparison, seen as 32-bit words (one per pixel) and as
/// bytes, plus an optional difference-image canvas on which each classified pixel is painted.
///
/// A scan covers one band of whole rows; a strategy may read any pixel of either image (the
/// anti-aliasing detector looks two rows beyond its band) but marks only pixels of its band, so
/// bands can be scanned on different cores.
struct PixelScan {
  let width: Int
  let height: Int
  let actual: UnsafePointer<UInt32>
  let reference: UnsafePointer<UInt32>
  /// Where marked pixels are painted; the band's rows are already drawn as matching pixels.
  let canvas: DifferenceCanvas?
  /// The rows this scan covers.
  let rows: Range<Int>
  /// The ignored regions, whose pixels are never visited; nil when none is ignored.
  var mask: PixelMask? = nil
  /// Shift tolerance's search for pixels that would count as differing; nil when off.
  var shift: ShiftMatch? = nil

  /// Every pixel of the image, not only of the band.
  var count: Int { width * height }
  var actualBytes: UnsafePointer<UInt8> {
    UnsafeRawPointer(actual).assumingMemoryBound(to: UInt8.self)
  }
  var referenceBytes: UnsafePointer<UInt8> {
    UnsafeRawPointer(reference).assumingMemoryBound(to: UInt8.self)
  }

  /// Calls `body` with the index of every pixel of the band whose bytes differ, in row-major
  /// order, skipping the ignored regions a span at a time.
  @inline(__always)
  func forEachChangedPixel(_ body: (Int) -> Void) {
    guard let mask else {
      return forEachChangedPixel(in: (rows.lowerBound &* width)..<(rows.upperBound &* width), body)
    }
    mask.forEachComparedSpan(in: rows) { span in forEachChangedPixel(in: span, body) }
  }

  /// Calls `body` with the index of every pixel of `span` whose bytes differ, in order.
  ///
  /// Eight pixels are checked at once as four 64-bit words, so identical stretches (the vast
  /// majority in a render test) cost one load and one branch per eight pixels.
  @inline(__always)
  func forEachChangedPixel(in span: Range<Int>, _ body: (Int) -> Void) {
    let a = UnsafeRawPointer(actual)
    let b = UnsafeRawPointer(reference)
    var index = span.lowerBound
    let end = span.upperBound
    while index &+ 8 <= end {
      let offset = index &* 4
      let changed =
        (a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
          ^ b.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        | (a.loadUnaligned(fromByteOffset: offset &+ 8, as: UInt64.self)
          ^ b.loadUnaligned(fromByteOffset: offset &+ 8, as: UInt64.self))
        | (a.loadUnaligned(fromByteOffset: offset &+ 16, as: UInt64.self)
          ^ b.loadUnaligned(fromByteOffset: offset &+ 16, as: UInt64.self))
        | (a.loadUnaligned(fromByteOffset: offset &+ 24, as: UInt64.self)
          ^ b.loadUnaligned(fromByteOffset: offset &+ 24, as: UInt64.self))
      if changed != 0 {
        // The changed pixels of the eight as bits, then one call per set bit: a loop that
        // tests each pixel mispredicts on every other one in a changed stretch.
        var bits = 0
        for lane in 0..<8 {
          bits |= (actual[index &+ lane] != reference[index &+ lane] ? 1 : 0) << lane
        }
        while bits != 0 {
          body(index &+ bits.trailingZeroBitCount)
          bits &= bits &- 1
        }
      }
      index &+= 8
    }
    while index < end {
      if actual[index] != reference[index] { body(index) }
      index &+= 1
    }
  }

  /// The largest absolute difference between corresponding channels of two pixels.
  @inline(__always)
  func largestChannelDifference(at index: Int) -> Int {
    let a = actualBytes + index &* 4
    let b = referenceBytes + index &* 4
    let red = abs(Int(a[0]) &- Int(b[0]))
    let green = abs(Int(a[1]) &- Int(b[1]))
    let blue = abs(Int(a[2]) &- Int(b[2]))
    let alpha = abs(Int(a[3]) &- Int(b[3]))
    return max(max(red, green), max(blue, alpha))
  }

  @inline(__always)
  func mark(_ index: Int, _ mark: PixelMark) {
    canvas?.paint(index, mark)
  }

  /// Counts a pixel the strategy finds differing: as differing, or, when shift tolerance finds
  /// it a counterpart nearby, as tolerated by the shift.
  @inline(__always)
  func countDiffering(_ index: Int, _ tally: inout DifferenceTally) {
    if let shift, shift.matches(self, index, &tally.shiftHints) {
      tally.tolerated &+= 1
      tally.shifted &+= 1
      mark(index, .shifted)
    } else {
      tally.addDiffering(index)
      mark(index, .differing)
    }
  }
}

/// Accumulates counts, the largest channel difference and the bounding box during a scan.
struct DifferenceTally {
  let width: Int
  var differing = 0
  var tolerated = 0
  /// Of `tolerated`, the pixels detected as anti-aliasing.
  var antiAliased = 0
  /// Of `tolerated`, the pixels that matched only shifted.
  var shifted = 0
  /// Shift tolerance's memory between pixels of the band.
  var shiftHints = ShiftMatch.Hints()
  var largestChannelDifference = 0
  var minX = Int.max
  var minY = Int.max
  var maxX = -1
  var maxY = -1

  init(width: Int) { self.width = width }

  @inline(__always)
  mutating func addDiffering(_ index: Int) {
    differing &+= 1
    let y = index / width
    let x = index &- y &* width
    minX = min(minX, x)
    maxX = max(maxX, x)
    minY = min(minY, y)
    maxY = max(maxY, y)
  }

  /// The counts of the band; `PixelDifferences.merged` adds bands together.
  func result(totalPixelCount: Int) -> PixelDifferences {
    PixelDifferences(
      differingPixelCount: differing, toleratedPixelCount: tolerated,
      antiAliasedPixelCount: antiAliased, shiftedPixelCount: shifted,
      totalPixelCount: totalPixelCount, largestChannelDifference: largestChannelDifference,
      boundingBox: differing == 0 ? nil : PixelBox(minX: minX, minY: minY, maxX: maxX, maxY: maxY))
  }
}
