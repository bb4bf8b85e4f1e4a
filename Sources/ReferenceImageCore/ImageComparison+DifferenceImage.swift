extension ImageComparison {
  /// Draws where two images differ, for a person to look at.
  ///
  /// Matching pixels are the reference dimmed to a dark grey, so the shapes stay recognisable;
  /// pixels the strategy tolerates show their absolute channel difference (anti-aliasing in
  /// dark yellow, pixels that matched only shifted in teal); pixels it counts as different are
  /// bright red; ignored regions are the reference dimmed to a dark blue. For images of
  /// different sizes the canvas is the union of both, and every pixel that only one image
  /// covers is red.
  /// - Parameters:
  ///   - image: The image under test.
  ///   - reference: The reference.
  /// - Returns: The difference image.
  public func differenceImage(_ image: RGBAImage, _ reference: RGBAImage) -> RGBAImage {
    compareWithDifferenceImage(image, to: reference).differenceImage
  }

  /// Compares two images and draws their difference image (see `differenceImage(_:_:)`) in the
  /// same scan: each band of rows is drawn as matching pixels and its comparison paints the
  /// pixels it finds over them, on the same core, so a failing comparison costs one pass, not a
  /// comparison and then a second one.
  /// - Parameters:
  ///   - image: The image under test.
  ///   - reference: The reference it should match.
  ///   - bound: How many differing pixels are allowed; none unless given.
  /// - Returns: The verdict, as `compare(_:to:bound:)` gives it, and the difference image.
  public func compareWithDifferenceImage(
    _ image: RGBAImage, to reference: RGBAImage, bound: DifferenceBound = .none
  ) -> (result: ComparisonResult, differenceImage: RGBAImage) {
    compareWithDifferenceImage(image, to: reference, bound: bound, bands: nil)
  }

  /// `compareWithDifferenceImage(_:to:bound:)` with a chosen number of bands, for tests.
  package func compareWithDifferenceImage(
    _ image: RGBAImage, to reference: RGBAImage, bound: DifferenceBound, bands: Int?
  ) -> (result: ComparisonResult, differenceImage: RGBAImage) {
    let width = max(image.width, reference.width)
    let height = max(image.height, reference.height)
    let overlapWidth = min(image.width, reference.width)
    let overlapHeight = min(image.height, reference.height)
    let actual = image.cropped(width: overlapWidth, height: overlapHeight)
    let expected = reference.cropped(width: overlapWidth, height: overlapHeight)
    let plan = BandPlan(width: overlapWidth, height: overlapHeight, bands: bands)
    let identical = actual.hasSamePixels(as: expected)
    let sameSize = image.width == reference.width && image.height == reference.height
    // Regions are ignored only where a comparison happens: a size change compares nothing.
    let mask = sameSize ? mask(width: overlapWidth, height: overlapHeight) : nil

    var found = PixelDifferences.identical(totalPixelCount: actual.pixelCount)
    func draw(into out: UnsafeMutableRawBufferPointer) {
      actual.pixels.withUnsafeBytes { a in
        expected.pixels.withUnsafeBytes { b in
          let canvas = DifferenceCanvas(
            output: out.baseAddress!.assumingMemoryBound(to: UInt32.self), outputWidth: width,
            width: overlapWidth, actual: a.baseAddress!.assumingMemoryBound(to: UInt8.self),
            reference: b.baseAddress!.assumingMemoryBound(to: UInt8.self), mask: mask)
          if identical {
            found = plan.run(totalPixelCount: actual.pixelCount) { rows in
              canvas.draw(rows)
              return .identical(totalPixelCount: actual.pixelCount)
            }
          } else {
            found = differences(actual, expected, plan: plan, canvas: canvas, mask: mask)
          }
        }
      }
    }
    let byteCount = width * height * 4
    let output: RGBAImage
    if width == overlapWidth && height == overlapHeight {
      // Every byte is drawn by the bands, so the buffer is not filled first: the bands also
      // take its page faults, on every core.
      let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
        draw(into: UnsafeMutableRawBufferPointer(buffer))
        initialized = byteCount
      }
      output = try! RGBAImage(width: width, height: height, pixels: pixels)
    } else {
      var canvas = try! RGBAImage(width: width, height: height, color: DifferenceColors.differing)
      canvas.withUnsafeMutablePixelBytes { draw(into: $0) }
      output = canvas
    }
    let result: ComparisonResult
    if !sameSize {
      result = self.result(
        .sizeMismatch(actual: image.size, reference: reference.size), allowed: 0, bound: bound)
    } else if identical {
      result = identicalResult(image, mask: mask, bound: bound)
    } else {
      result = self.result(found, bound: bound)
    }
    return (result, output)
  }
}

/// Where a difference image is drawn: the output canvas and the overlapping part of the two
/// images. Each band draws only its own rows, then the scan paints the pixels it marks.
struct DifferenceCanvas {
  let output: UnsafeMutablePointer<UInt32>
  let outputWidth: Int
  let width: Int
  let actual: UnsafePointer<UInt8>
  let reference: UnsafePointer<UInt8>
  /// The ignored regions, drawn over the matching pixels in blue.
  var mask: PixelMask? = nil

  /// Draws every pixel of the rows as a matching one, then the ignored ones.
  func draw(_ rows: Range<Int>) {
    drawMatching(rows)
    mask?.forEachIgnoredSpan(in: rows) { span in
      for index in span {
        let y = index / width
        let target = output + (y &* outputWidth &+ index &- y &* width)
        target.pointee = DifferenceColors.ignored(grey: UInt8(truncatingIfNeeded: target.pointee))
      }
    }
  }

  /// Draws every pixel of the rows as a matching one, eight at a time.
  private func drawMatching(_ rows: Range<Int>) {
    for y in rows {
      let row = y &* width
      let target = output + y &* outputWidth
      let source = UnsafeRawPointer(reference + row &* 4)
      var x = 0
      while x &+ 8 <= width {
        let words = source.loadUnaligned(fromByteOffset: x &* 4, as: SIMD8<UInt32>.self)
        UnsafeMutableRawPointer(target + x).storeBytes(
          of: DifferenceColors.dimmed(words), as: SIMD8<UInt32>.self)
        x &+= 8
      }
      while x < width {
        let offset = (row &+ x) &* 4
        target[x] =
          DifferenceColors.dimmed(
            red: reference[offset], green: reference[offset &+ 1],
            blue: reference[offset &+ 2], alpha: reference[offset &+ 3]
          ).packed
        x &+= 1
      }
    }
  }

  /// Paints one pixel the comparison marked, over its matching colour.
  @inline(__always)
  func paint(_ index: Int, _ mark: PixelMark) {
    let y = index / width
    let x = index &- y &* width
    let offset = index &* 4
    output[y &* outputWidth &+ x] =
      DifferenceColors.color(
        mark,
        RGBAColor(
          red: actual[offset], green: actual[offset &+ 1], blue: actual[offset &+ 2],
          alpha: actual[offset &+ 3]),
        RGBAColor(
          red: reference[offset], green: reference[offset &+ 1],
          blue: reference[offset &+ 2], alpha: reference[offset &+ 3])
      ).packed
  }
}

/// The palette of difference images.
enum DifferenceColors {
  static let differing = RGBAColor(red: 255, green: 0, blue: 0)

  static func color(_ mark: PixelMark, _ actual: RGBAColor, _ reference: RGBAColor) -> RGBAColor {
    switch mark {
    case .same:
      return dimmed(
        red: reference.red, green: reference.green, blue: reference.blue, alpha: reference.alpha)
    case .tolerated:
      // Scaled to at most 191 so a tolerated difference never looks like the pure red of a
      // counted one.
      return RGBAColor(
        red: dimmed(absoluteDifference(actual.red, reference.red)),
        green: dimmed(absoluteDifference(actual.green, reference.green)),
        blue: dimmed(absoluteDifference(actual.blue, reference.blue)))
    case .antiAliased:
      return RGBAColor(red: 128, green: 128, blue: 0)
    case .shifted:
      return shifted
    case .differing:
      return differing
    }
  }

  /// Pixels that matched only shifted: teal, apart from both the red of counted differences and
  /// the yellows and greys of other tolerated ones.
  static let shifted = RGBAColor(red: 0, green: 128, blue: 128)

  /// An ignored pixel, from the grey (0–63) its matching colour has: the same shape in dark
  /// blue, so a reviewer sees both what was ignored and what lies there.
  @inline(__always)
  static func ignored(grey: UInt8) -> UInt32 {
    RGBAColor(red: 0, green: 0, blue: 64 &+ grey).packed
  }

  /// A matching pixel: the luma of the reference over black, at a quarter brightness.
  @inline(__always)
  static func dimmed(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) -> RGBAColor {
    let luma = (299 &* Int(red) &+ 587 &* Int(green) &+ 114 &* Int(blue)) / 1000
    let gray = UInt8(truncatingIfNeeded: luma &* Int(alpha) / 255 / 4)
    return RGBAColor(red: gray, green: gray, blue: gray)
  }

  /// `dimmed(red:green:blue:alpha:)` for eight pixels at once, as little-endian RGBA words.
  /// Single-precision arithmetic gives the same integers: every sum and product is below 2^24,
  /// so exact, and a correctly rounded quotient never reaches the next integer (the nearest
  /// one above lies at least 1/1020 away, far more than the rounding error). Conversions go
  /// through the bits of 2^23 + n, which compile to plain vector instructions.
  @inline(__always)
  static func dimmed(_ words: SIMD8<UInt32>) -> SIMD8<UInt32> {
    let mask = SIMD8<UInt32>(repeating: 0xFF)
    let red = float(words & mask)
    let green = float((words &>> 8) & mask)
    let blue = float((words &>> 16) & mask)
    let weighted = 299 * red + 587 * green + 114 * blue
    let gray: SIMD8<UInt32>
    if isOpaque(words) {
      gray = opaqueGray(weighted)
    } else {
      let alpha = float(words &>> 24)
      let luma = float(floorToInteger(weighted / 1000))
      // floor(floor(luma × alpha / 255) / 4) is floor(luma × alpha / 1020) for integers.
      gray = floorToInteger(luma * alpha / 1020)
    }
    return gray &* 0x01_0101 | SIMD8<UInt32>(repeating: 0xFF00_0000)
  }

  /// Whether all eight pixels have alpha 255, as screenshots mostly do.
  @inline(__always)
  private static func isOpaque(_ words: SIMD8<UInt32>) -> Bool {
    let all = words[0] & words[1] & words[2] & words[3] & words[4] & words[5] & words[6] & words[7]
    return all >= 0xFF00_0000
  }

  /// The grey of opaque pixels from their weighted sum S = 299 r + 587 g + 114 b:
  /// floor(floor(S / 1000) × 255 / 1020) = floor(S / 4000), by one multiplication instead of
  /// two divisions. The factor is two steps above the float nearest 1/4000, so the product
  /// never falls below an integer it should reach, and stays below the next one (S / 4000 is at
  /// least 1/4000 below it, far more than the excess); checked for every S from 0 to 255 000.
  @inline(__always)
  static func opaqueGray(_ weighted: SIMD8<Float>) -> SIMD8<UInt32> {
    floorToInteger(weighted * 0x1.0624e2p-12)
  }

  private static let twoToThe23 = SIMD8<Float>(repeating: 8_388_608)

  /// Integers below 2^23 as floats.
  @inline(__always)
  private static func float(_ integers: SIMD8<UInt32>) -> SIMD8<Float> {
    unsafeBitCast(integers | SIMD8<UInt32>(repeating: 0x4B00_0000), to: SIMD8<Float>.self)
      - twoToThe23
  }

  /// The floor of non-negative floats below 2^22 as integers: adding 2^23 rounds to the nearest
  /// integer, then one is taken back where that rounded up.
  @inline(__always)
  static func floorToInteger(_ values: SIMD8<Float>) -> SIMD8<UInt32> {
    let shifted = values + twoToThe23
    var integers = unsafeBitCast(shifted, to: SIMD8<UInt32>.self) & 0x7F_FFFF
    integers.replace(with: integers &- 1, where: shifted - twoToThe23 .> values)
    return integers
  }

  static func dimmed(_ value: UInt8) -> UInt8 { UInt8(Int(value) * 3 / 4) }

  static func absoluteDifference(_ a: UInt8, _ b: UInt8) -> UInt8 { a > b ? a - b : b - a }
}

extension RGBAImage {
  /// The top-left `width` × `height` part of the image; the image itself when the size matches.
  package func cropped(width newWidth: Int, height newHeight: Int) -> RGBAImage {
    if newWidth == width && newHeight == height { return self }
    var bytes = [UInt8]()
    bytes.reserveCapacity(newWidth * newHeight * 4)
    for y in 0..<newHeight {
      let start = y * width * 4
      bytes.append(contentsOf: pixels[start..<(start + newWidth * 4)])
    }
    return try! RGBAImage(width: newWidth, height: newHeight, pixels: bytes)
  }
}
