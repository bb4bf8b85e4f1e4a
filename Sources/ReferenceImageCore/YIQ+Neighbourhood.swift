/// The eight neighbours of a pixel that is at least one pixel away from every edge, gathered
/// once as RGBA words in the order pixelmatch visits them (column by column, top to bottom).
///
/// The anti-aliasing detector compares a pixel with each neighbour, keeps the first darkest and
/// first brightest one and then counts the equal neighbours of those. pixelmatch does it one
/// neighbour at a time, recomputing the centre's colour terms and taking a branch per step;
/// here the eight brightness differences are computed at once in vector lanes, with the same
/// operations in the same order, so each lane holds the very double pixelmatch computes.
///
/// Lanes are read with constant indices only: a lane index held in a loop variable makes the
/// compiler spill the whole vector to the stack and reload it lane by lane.
struct Neighbourhood {
  let center: UInt32
  /// The neighbours' words, zero-extended to 64 bits so the channels become doubles by plain
  /// vector instructions (see `channel`); lane `n` sits at `offset(ofLane: n)`.
  let words: SIMD8<UInt64>

  /// Where lane `lane` sits relative to the centre. Each offset plus one is a nibble of a
  /// constant (lane 0 lowest): columns 0,0,0,1,1,2,2,2 and rows 0,1,2,0,2,0,1,2.
  @inline(__always)
  static func offset(ofLane lane: Int) -> (x: Int, y: Int) {
    ((0x2221_1000 >> (lane &* 4)) & 0xF &- 1, (0x2102_0210 >> (lane &* 4)) & 0xF &- 1)
  }

  /// - Parameters:
  ///   - pixels: The image as one word per pixel.
  ///   - index: An interior pixel: 1 ≤ x ≤ width − 2 and 1 ≤ y ≤ height − 2.
  ///   - width: The image width.
  @inline(__always)
  init(_ pixels: UnsafePointer<UInt32>, _ index: Int, _ width: Int) {
    let above = pixels + (index &- width)
    let here = pixels + index
    let below = pixels + (index &+ width)
    center = here[0]
    words = SIMD8(
      UInt64(above[-1]), UInt64(here[-1]), UInt64(below[-1]), UInt64(above[0]),
      UInt64(below[0]), UInt64(above[1]), UInt64(here[1]), UInt64(below[1]))
  }

  /// How many of an interior pixel's eight neighbours have exactly its colour; pixelmatch's
  /// `hasManySiblings` is whether there are three or more. All eight are counted, branch-free;
  /// stopping at the third, as pixelmatch does, gives the same answer.
  @inline(__always)
  static func equalNeighbourCount(
    _ pixels: UnsafePointer<UInt32>, _ index: Int, _ width: Int
  ) -> Int {
    let above = pixels + (index &- width)
    let here = pixels + index
    let below = pixels + (index &+ width)
    let center = here[0]
    @inline(__always) func one(_ word: UInt32) -> Int { word == center ? 1 : 0 }
    let equal =
      one(above[-1]) &+ one(here[-1]) &+ one(below[-1]) &+ one(above[0]) &+ one(below[0])
      &+ one(above[1]) &+ one(here[1]) &+ one(below[1])
    return equal
  }

  /// pixelmatch's `brightnessDelta` from the centre to each neighbour, with the same operations
  /// in the same order on every lane, so each lane holds the very double pixelmatch computes.
  /// - Parameter centerOffset: The centre's byte offset, which picks the checkerboard colour
  ///   translucent pixels are blended over.
  @inline(__always)
  func brightnessDeltas(centerOffset: Int) -> SIMD8<Double> {
    guard isOpaque else { return translucentBrightnessDeltas(centerOffset: centerOffset) }
    let dr = Double(center & 0xFF) - Self.channel(words, 0)
    let dg = Double((center >> 8) & 0xFF) - Self.channel(words, 8)
    let db = Double((center >> 16) & 0xFF) - Self.channel(words, 16)
    return dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223
  }

  /// `brightnessDeltas` where a pixel is translucent, blended over the checkerboard. Kept out
  /// of line: screenshots are mostly opaque, and the hot path stays small.
  @inline(never)
  func translucentBrightnessDeltas(centerOffset: Int) -> SIMD8<Double> {
    let red = Self.channel(words, 0)
    let green = Self.channel(words, 8)
    let blue = Self.channel(words, 16)
    let alpha = Self.channel(words, 24)
    let r1 = Double(center & 0xFF)
    let g1 = Double((center >> 8) & 0xFF)
    let b1 = Double((center >> 16) & 0xFF)
    let a1 = Double(center >> 24)
    // pixelmatch blends only pairs with a translucent pixel, but the blend gives exactly
    // r1 − r2 where both are opaque (255 × (r1 − r2) / 255 is exact), so every lane takes it.
    let background = YIQ.checkerboard(centerOffset)
    let da = a1 - alpha
    let dr = (r1 * a1 - red * alpha - background.red * da) / 255
    let dg = (g1 * a1 - green * alpha - background.green * da) / 255
    let db = (b1 * a1 - blue * alpha - background.blue * da) / 255
    return dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223
  }

  /// Whether the centre and all eight neighbours have alpha 255.
  @inline(__always)
  private var isOpaque: Bool {
    let all =
      UInt64(center) & words[0] & words[1] & words[2] & words[3] & words[4] & words[5]
      & words[6] & words[7]
    return all >> 24 == 0xFF
  }

  /// One 8-bit channel of every lane, as doubles. The standard library's integer-to-double
  /// vector conversion is a call to generic code; instead the channel becomes the low bits of
  /// 2^52's mantissa, and 2^52 is subtracted, which is exact.
  @inline(__always)
  private static func channel(_ words: SIMD8<UInt64>, _ shift: UInt64) -> SIMD8<Double> {
    let twoToThe52 = SIMD8<UInt64>(repeating: 0x4330_0000_0000_0000)
    let bits = ((words &>> shift) & 0xFF) | twoToThe52
    return unsafeBitCast(bits, to: SIMD8<Double>.self) - 4_503_599_627_370_496
  }
}

extension YIQ {
  /// `isAntiAliased` for a pixel at least one pixel away from every edge, all eight neighbours
  /// at once; border pixels, whose neighbourhood is cut, take the scalar detector.
  @inline(__always)
  static func isAntiAliasedInterior(
    _ image: UnsafePointer<UInt32>, _ x1: Int, _ y1: Int, _ width: Int, _ height: Int,
    _ words1: UnsafePointer<UInt32>, _ words2: UnsafePointer<UInt32>
  ) -> Bool {
    let index = y1 &* width &+ x1
    // Three neighbours of exactly the pixel's colour are three zero differences, and the
    // verdict is false; in text and flat areas that is most pixels, found by comparing words
    // before any arithmetic.
    if Neighbourhood.equalNeighbourCount(image, index, width) > 2 { return false }
    let deltas = Neighbourhood(image, index, width).brightnessDeltas(centerOffset: index &* 4)
    let extremes = Extremes(deltas)
    let darkestOffset = Neighbourhood.offset(ofLane: extremes.darkestLane)
    let brightestOffset = Neighbourhood.offset(ofLane: extremes.brightestLane)
    let darkestX = x1 &+ darkestOffset.x
    let darkestY = y1 &+ darkestOffset.y
    let brightestX = x1 &+ brightestOffset.x
    let brightestY = y1 &+ brightestOffset.y
    // pixelmatch stops at the third equal neighbour, with the verdict false either way.
    if extremes.zeroes > 2 || extremes.darkest == 0 || extremes.brightest == 0 { return false }
    return
      (hasManySiblingsAnywhere(words1, darkestX, darkestY, width, height) != 0
      && hasManySiblingsAnywhere(words2, darkestX, darkestY, width, height) != 0)
      || (hasManySiblingsAnywhere(words1, brightestX, brightestY, width, height) != 0
        && hasManySiblingsAnywhere(words2, brightestX, brightestY, width, height) != 0)
  }

  /// `hasManySiblings` as 1 or 0, branch-free where the pixel is interior.
  @inline(__always)
  static func hasManySiblingsAnywhere(
    _ words: UnsafePointer<UInt32>, _ x: Int, _ y: Int, _ width: Int, _ height: Int
  ) -> Int {
    if x > 0 && y > 0 && x < width &- 1 && y < height &- 1 {
      return Neighbourhood.equalNeighbourCount(words, y &* width &+ x, width) > 2 ? 1 : 0
    }
    return hasManySiblingsOutOfLine(words, x, y, width, height) ? 1 : 0
  }

  /// The scalar `hasManySiblings` for border pixels, kept out of line so the interior path stays
  /// small.
  @inline(never)
  static func hasManySiblingsOutOfLine(
    _ words: UnsafePointer<UInt32>, _ x: Int, _ y: Int, _ width: Int, _ height: Int
  ) -> Bool {
    hasManySiblings(words, x, y, width, height)
  }

  /// The checkerboard colour pixelmatch 7.x blends translucent pixels over, chosen by the
  /// centre pixel's byte offset `k`.
  @inline(__always)
  static func checkerboard(_ k: Int) -> (red: Double, green: Double, blue: Double) {
    (
      48 + 159 * Double(k % 2),
      48 + 159 * Double(Int(Double(k) / 1.618033988749895) % 2),
      48 + 159 * Double(Int(Double(k) / 2.618033988749895) % 2)
    )
  }
}

/// The counts and extremes pixelmatch's detector gathers over the eight neighbours.
///
/// pixelmatch's darkest starts at 0 and takes a neighbour only when strictly lower, so it ends
/// as the first lane (in visiting order) holding the lowest negative difference; likewise the
/// brightest. Written as pixelmatch's step-by-step chain, the compiler turns it into a tree of
/// thousands of instructions; instead the extremes are reduced with the processor's min and
/// max, and the lanes equal to them are collected as bits, whose lowest set bit is the first
/// lane. (Timing showed both forms about equally fast; this one is a tenth of the code.)
struct Extremes {
  let zeroes: Int
  let darkest: Double
  let brightest: Double
  let darkestLane: Int
  let brightestLane: Int

  @inline(__always)
  init(_ deltas: SIMD8<Double>) {
    let d = (deltas[0], deltas[1], deltas[2], deltas[3], deltas[4], deltas[5], deltas[6], deltas[7])
    darkest = min(
      min(min(min(d.0, d.1), min(d.2, d.3)), min(min(d.4, d.5), min(d.6, d.7))), 0)
    // Written as `a > b ? a : b`, the form of the processor's max instruction; the standard
    // library's `max` (`b >= a ? b : a`) becomes a tree of branches.
    @inline(__always) func larger(_ a: Double, _ b: Double) -> Double { a > b ? a : b }
    brightest = larger(
      larger(
        larger(larger(d.0, d.1), larger(d.2, d.3)), larger(larger(d.4, d.5), larger(d.6, d.7))),
      0)
    // Equal doubles here are equal bit patterns (the extremes are nonzero when used, and no
    // difference is NaN); comparing integers keeps the compiler from building a tree of
    // branches out of the floating-point comparisons.
    @inline(__always) func lanes(equalTo value: Double) -> Int {
      let pattern = value.bitPattern
      @inline(__always) func bit(_ delta: Double, _ lane: Int) -> Int {
        (delta.bitPattern == pattern ? 1 : 0) << lane
      }
      return bit(d.0, 0) | bit(d.1, 1) | bit(d.2, 2) | bit(d.3, 3) | bit(d.4, 4) | bit(d.5, 5)
        | bit(d.6, 6) | bit(d.7, 7)
    }
    // +0 and −0 are both zero: the bit pattern without its sign is 0.
    @inline(__always) func zero(_ delta: Double) -> Int { delta.bitPattern << 1 == 0 ? 1 : 0 }
    zeroes =
      zero(d.0) + zero(d.1) + zero(d.2) + zero(d.3) + zero(d.4) + zero(d.5) + zero(d.6)
      + zero(d.7)
    // With no negative (or positive) lane the extreme is 0 and the lane is unused.
    darkestLane = (lanes(equalTo: darkest) | 1 << 8).trailingZeroBitCount & 7
    brightestLane = (lanes(equalTo: brightest) | 1 << 8).trailingZeroBitCount & 7
  }
}
