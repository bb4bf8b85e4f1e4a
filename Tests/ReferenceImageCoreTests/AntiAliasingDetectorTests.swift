import XCTest

@testable import ReferenceImageCore

/// The eight-lane anti-aliasing detector (`YIQ.isAntiAliasedInterior`) against the scalar one
/// that follows pixelmatch line by line (`YIQ.isAntiAliased`), on images built to hit the
/// awkward cases: few colours (so equal neighbours, ties between the darkest ones and flat
/// areas are common), translucent and fully transparent pixels, and pixels whose colour is the
/// same but whose alpha is not.
final class AntiAliasingDetectorTests: XCTestCase {
  private struct Pair {
    let width: Int
    let height: Int
    var a: [UInt32]
    var b: [UInt32]
  }

  /// A deterministic generator (SplitMix64), so a failure names a reproducible seed.
  private struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
  }

  private static func word(_ red: Int, _ green: Int, _ blue: Int, _ alpha: Int) -> UInt32 {
    UInt32(red) | UInt32(green) << 8 | UInt32(blue) << 16 | UInt32(alpha) << 24
  }

  /// A palette of a few colours: greys (ties in brightness), saturated colours, the same
  /// colour at several alphas, and transparent pixels with different colours underneath.
  private static func palette(_ random: inout SplitMix64, translucent: Bool) -> [UInt32] {
    var colors: [UInt32] = [
      word(255, 255, 255, 255), word(0, 0, 0, 255), word(128, 128, 128, 255),
      word(200, 30, 30, 255), word(30, 200, 30, 255), word(30, 30, 200, 255),
    ]
    for _ in 0..<3 {
      colors.append(word(random.below(256), random.below(256), random.below(256), 255))
    }
    if translucent {
      colors += [
        word(128, 128, 128, 128), word(128, 128, 128, 254), word(200, 30, 30, 0),
        word(30, 200, 30, 0), word(random.below(256), random.below(256), random.below(256), 1),
        word(255, 255, 255, 77),
      ]
    }
    return colors
  }

  /// Two images from one palette: the second is the first with some pixels changed, and
  /// stretches of flat colour in both so that `hasManySiblings` is true often.
  private static func pair(seed: UInt64, translucent: Bool) -> Pair {
    var random = SplitMix64(state: seed)
    let colors = palette(&random, translucent: translucent)
    let width = 3 + random.below(30)
    let height = 3 + random.below(30)
    var a = [UInt32](repeating: 0, count: width * height)
    var current = colors[0]
    for index in a.indices {
      // Runs of one colour make flat areas; a new colour one time in three makes edges.
      if random.below(3) == 0 { current = colors[random.below(colors.count)] }
      a[index] = current
    }
    var b = a
    for index in b.indices where random.below(4) == 0 {
      b[index] = colors[random.below(colors.count)]
    }
    return Pair(width: width, height: height, a: a, b: b)
  }

  func testInteriorDetector_randomImages_agreesWithScalarDetector() {
    var verdicts = (antiAliased: 0, notAntiAliased: 0)
    for seed in UInt64(0)..<600 {
      let pair = Self.pair(seed: seed, translucent: seed % 2 == 1)
      pair.a.withUnsafeBufferPointer { a in
        pair.b.withUnsafeBufferPointer { b in
          let (a, b) = (a.baseAddress!, b.baseAddress!)
          let aBytes = UnsafeRawPointer(a).assumingMemoryBound(to: UInt8.self)
          let bBytes = UnsafeRawPointer(b).assumingMemoryBound(to: UInt8.self)
          for y in 1..<(pair.height - 1) {
            for x in 1..<(pair.width - 1) {
              for (image, bytes, other) in [(a, aBytes, b), (b, bBytes, a)] {
                let scalar = YIQ.isAntiAliased(bytes, x, y, pair.width, pair.height, image, other)
                let lanes = YIQ.isAntiAliasedInterior(
                  image, x, y, pair.width, pair.height, image, other)
                XCTAssertEqual(lanes, scalar, "seed \(seed), pixel (\(x), \(y))")
                if scalar { verdicts.antiAliased += 1 } else { verdicts.notAntiAliased += 1 }
              }
            }
          }
        }
      }
    }
    // The images must reach both verdicts often, or the agreement says little.
    XCTAssertGreaterThan(verdicts.antiAliased, 1000)
    XCTAssertGreaterThan(verdicts.notAntiAliased, 1000)
  }

  func testSiblingCount_everyPixelIncludingBorders_agreesWithScalarCheck() {
    var many = 0
    for seed in UInt64(0)..<200 {
      let pair = Self.pair(seed: seed, translucent: true)
      pair.a.withUnsafeBufferPointer { words in
        for y in 0..<pair.height {
          for x in 0..<pair.width {
            let scalar = YIQ.hasManySiblings(words.baseAddress!, x, y, pair.width, pair.height)
            let lanes = YIQ.hasManySiblingsAnywhere(
              words.baseAddress!, x, y, pair.width, pair.height)
            XCTAssertEqual(lanes != 0, scalar, "seed \(seed), pixel (\(x), \(y))")
            many += scalar ? 1 : 0
          }
        }
      }
    }
    XCTAssertGreaterThan(many, 1000)
  }

  /// The darkest neighbours tie: pixelmatch keeps the first in its column-by-column order, and
  /// only that one's siblings decide. The centre (3, 3) of a 7 × 7 image is grey between two
  /// black neighbours, (2, 3) first and (4, 3) later, under a white one; one black neighbour
  /// sits in a flat area (a black column beside it), the other does not.
  func testInteriorDetector_tiedDarkestNeighbours_keepsTheFirstInVisitingOrder() {
    let white = Self.word(255, 255, 255, 255)
    let black = Self.word(0, 0, 0, 255)
    let grey = Self.word(128, 128, 128, 255)
    let light = Self.word(200, 200, 200, 255)
    for flatColumn in [1, 5] {
      var pixels = [UInt32](repeating: light, count: 49)
      pixels[3 * 7 + 3] = grey
      pixels[3 * 7 + 2] = black
      pixels[3 * 7 + 4] = black
      pixels[2 * 7 + 3] = white
      for y in 2...4 { pixels[y * 7 + flatColumn] = black }
      pixels.withUnsafeBufferPointer { buffer in
        let words = buffer.baseAddress!
        let bytes = UnsafeRawPointer(words).assumingMemoryBound(to: UInt8.self)
        let scalar = YIQ.isAntiAliased(bytes, 3, 3, 7, 7, words, words)
        let lanes = YIQ.isAntiAliasedInterior(words, 3, 3, 7, 7, words, words)
        XCTAssertEqual(lanes, scalar, "black column at x = \(flatColumn)")
        // Only a flat first darkest neighbour (the left one) makes the pixel anti-aliased.
        XCTAssertEqual(scalar, flatColumn == 1, "black column at x = \(flatColumn)")
      }
    }
  }

  /// Whole comparisons on random pairs, against counts made with the scalar detector alone,
  /// for several band counts (bands read rows beyond their own).
  func testPerceptualCounts_randomImages_matchScalarReferenceCount() throws {
    for seed in UInt64(1000)..<1150 {
      let pair = Self.pair(seed: seed, translucent: seed % 3 != 0)
      let expected = Self.scalarCount(pair, threshold: 0.1)
      let image = try Self.image(pair.width, pair.height, pair.a)
      let reference = try Self.image(pair.width, pair.height, pair.b)
      for bands in [1, 2, 3] {
        let found = ImageComparison.perceptual(threshold: 0.1)
          .compare(image, to: reference, bound: .none, bands: bands).differences
        XCTAssertEqual(found?.differingPixelCount ?? 0, expected, "seed \(seed), \(bands) bands")
      }
    }
  }

  private static func image(_ width: Int, _ height: Int, _ words: [UInt32]) throws -> RGBAImage {
    try RGBAImage(
      width: width, height: height, pixels: words.withUnsafeBytes { [UInt8]($0) })
  }

  /// pixelmatch's loop, written plainly with the scalar detector.
  private static func scalarCount(_ pair: Pair, threshold: Double) -> Int {
    let maximumDelta = 35215 * threshold * threshold
    var count = 0
    pair.a.withUnsafeBufferPointer { a in
      pair.b.withUnsafeBufferPointer { b in
        let (a, b) = (a.baseAddress!, b.baseAddress!)
        let aBytes = UnsafeRawPointer(a).assumingMemoryBound(to: UInt8.self)
        let bBytes = UnsafeRawPointer(b).assumingMemoryBound(to: UInt8.self)
        for index in 0..<(pair.width * pair.height) where a[index] != b[index] {
          let delta = YIQ.colorDelta(aBytes, bBytes, index * 4, index * 4, brightnessOnly: false)
          guard abs(delta) > maximumDelta else { continue }
          let (x, y) = (index % pair.width, index / pair.width)
          let antiAliased =
            YIQ.isAntiAliased(aBytes, x, y, pair.width, pair.height, a, b)
            || YIQ.isAntiAliased(bBytes, x, y, pair.width, pair.height, b, a)
          count += antiAliased ? 0 : 1
        }
      }
    }
    return count
  }
}
