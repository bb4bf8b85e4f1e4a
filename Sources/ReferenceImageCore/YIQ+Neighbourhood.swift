/// The eight neighbours of a pixel that is at least one pixel away from every edge, gathered
/// once as RGBA words in the order pixelmatch visits them (column by column, top to bottom).
///
/// The anti-aliasing detector compares a pixel with each neighbour, keeps the first darkest and
/// first brightest one and then counts the equal neighbours of those. Done one neighbour at a
/// time, every comparison is a branch the processor cannot predict (about half the time of a
/// clearly changed pixel); done on all eight lanes at once, with the order kept by taking the
/// first lane that holds the extreme, it has no data-dependent branch and the same verdict.
struct Neighbourhood {
  let center: UInt32
  /// The neighbours' words; lane `n` sits at (`columnOffsets[n]`, `rowOffsets[n]`).
  let words: SIMD8<UInt32>

  static let columnOffsets: SIMD8<Int32> = [-1, -1, -1, 0, 0, 1, 1, 1]
  static let rowOffsets: SIMD8<Int32> = [-1, 0, 1, -1, 1, -1, 0, 1]

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
    words = SIMD8(above[-1], here[-1], below[-1], above[0], below[0], above[1], here[1], below[1])
  }

  /// pixelmatch's `hasManySiblings`: three or more neighbours of exactly the centre's colour.
  @inline(__always)
  var hasManySiblings: Bool {
    count(words .== SIMD8(repeating: center)) > 2
  }

  /// pixelmatch's `brightnessDelta` from the centre to each neighbour, with the same operations
  /// in the same order on every lane, so each lane holds the very double pixelmatch computes.
  /// - Parameter centerOffset: The centre's byte offset, which picks the checkerboard colour
  ///   translucent pixels are blended over.
  @inline(__always)
  func brightnessDeltas(centerOffset: Int) -> SIMD8<Double> {
    let red = Self.channel(words, 0)
    let green = Self.channel(words, 8)
    let blue = Self.channel(words, 16)
    let alpha = Self.channel(words, 24)
    let r1 = Double(center & 0xFF)
    let g1 = Double((center >> 8) & 0xFF)
    let b1 = Double((center >> 16) & 0xFF)
    let a1 = Double(center >> 24)
    var dr = r1 - red
    var dg = g1 - green
    var db = b1 - blue
    if a1 < 255 || any(alpha .< 255) {
      // The blend gives exactly r1 − r2 where both pixels are opaque (255 × (r1 − r2) / 255
      // is exact), so applying it to every lane matches pixelmatch's per-pixel choice.
      let background = YIQ.checkerboard(centerOffset)
      let da = a1 - alpha
      dr = (r1 * a1 - red * alpha - background.red * da) / 255
      dg = (g1 * a1 - green * alpha - background.green * da) / 255
      db = (b1 * a1 - blue * alpha - background.blue * da) / 255
    }
    return dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223
  }

  /// One 8-bit channel of every lane, as doubles.
  @inline(__always)
  private static func channel(_ words: SIMD8<UInt32>, _ shift: UInt32) -> SIMD8<Double> {
    SIMD8<Double>((words &>> shift) & 0xFF)
  }

  /// The number of true lanes.
  @inline(__always)
  private func count(_ mask: SIMDMask<SIMD8<Int32>>) -> Int {
    Int(SIMD8<Int32>(repeating: 0).replacing(with: 1, where: mask).wrappedSum())
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
    let deltas = Neighbourhood(image, index, width).brightnessDeltas(centerOffset: index &* 4)
    // pixelmatch stops at the third equal neighbour; the verdict is false either way.
    let zero = SIMD8<Double>(repeating: 0)
    if countLanes(deltas .== zero) > 2 { return false }
    // Its darkest starts at 0 and takes a neighbour only when strictly lower, so it ends as the
    // first lane holding the minimum, if that is negative; likewise the brightest.
    let darkest = deltas.min()
    let brightest = deltas.max()
    if !(darkest < 0) || !(brightest > 0) { return false }
    let darkestLane = firstLane(deltas .== SIMD8(repeating: darkest))
    let brightestLane = firstLane(deltas .== SIMD8(repeating: brightest))
    let darkestX = x1 &+ Int(Neighbourhood.columnOffsets[darkestLane])
    let darkestY = y1 &+ Int(Neighbourhood.rowOffsets[darkestLane])
    let brightestX = x1 &+ Int(Neighbourhood.columnOffsets[brightestLane])
    let brightestY = y1 &+ Int(Neighbourhood.rowOffsets[brightestLane])
    return
      (hasManySiblingsAnywhere(words1, darkestX, darkestY, width, height)
      && hasManySiblingsAnywhere(words2, darkestX, darkestY, width, height))
      || (hasManySiblingsAnywhere(words1, brightestX, brightestY, width, height)
        && hasManySiblingsAnywhere(words2, brightestX, brightestY, width, height))
  }

  /// `hasManySiblings` with the eight-lane comparison where the pixel is interior.
  @inline(__always)
  static func hasManySiblingsAnywhere(
    _ words: UnsafePointer<UInt32>, _ x: Int, _ y: Int, _ width: Int, _ height: Int
  ) -> Bool {
    if x > 0 && y > 0 && x < width &- 1 && y < height &- 1 {
      return Neighbourhood(words, y &* width &+ x, width).hasManySiblings
    }
    return hasManySiblings(words, x, y, width, height)
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

  @inline(__always)
  private static func countLanes(_ mask: SIMDMask<SIMD8<Int64>>) -> Int {
    Int(SIMD8<Int64>(repeating: 0).replacing(with: 1, where: mask).wrappedSum())
  }

  /// The lowest true lane of a mask with at least one.
  @inline(__always)
  private static func firstLane(_ mask: SIMDMask<SIMD8<Int64>>) -> Int {
    let lanes: SIMD8<Int64> = [0, 1, 2, 3, 4, 5, 6, 7]
    return Int(lanes.replacing(with: 8, where: .!mask).min())
  }
}
