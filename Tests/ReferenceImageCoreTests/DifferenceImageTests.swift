import XCTest

@testable import ReferenceImageCore

final class DifferenceImageTests: XCTestCase {
  private let red = RGBAColor(red: 255, green: 0, blue: 0)

  private func redPositions(_ image: RGBAImage) -> Set<[Int]> {
    var positions = Set<[Int]>()
    for y in 0..<image.height {
      for x in 0..<image.width where image[x, y] == red { positions.insert([x, y]) }
    }
    return positions
  }

  func testDifferenceImage_identicalImages_haveNoRedPixels() throws {
    // A reference that is itself pure red in places: matching pixels must still not be red.
    var image = try RGBAImage(width: 12, height: 9, color: .white)
    for x in 0..<12 { image[x, 4] = red }
    image[0, 0] = .clear
    for strategy in [ImageComparison.exact, .tolerance(3), .perceptual()] {
      let difference = strategy.differenceImage(image, image)
      XCTAssertEqual(difference.size, image.size)
      XCTAssertTrue(redPositions(difference).isEmpty, strategy.name)
      XCTAssertTrue(
        difference.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })
    }
  }

  func testDifferenceImage_changedRegion_isRedExactlyWhereCounted() throws {
    let reference = try RGBAImage(
      width: 20, height: 10, color: RGBAColor(red: 200, green: 200, blue: 200))
    var image = reference
    var changed = Set<[Int]>()
    for y in 2..<5 {
      for x in 3..<9 {
        image[x, y] = RGBAColor(red: 10, green: 20, blue: 30)
        changed.insert([x, y])
      }
    }
    image[15, 8] = RGBAColor(red: 202, green: 200, blue: 200)  // within tolerance 5
    for strategy in [ImageComparison.exact, .tolerance(5), .perceptual(threshold: 0.1)] {
      let result = strategy.compare(image, to: reference)
      let difference = strategy.differenceImage(image, reference)
      let reds = redPositions(difference)
      XCTAssertEqual(reds.count, result.differences?.differingPixelCount, strategy.name)
      let expected = strategy.name == "exact" ? changed.union([[15, 8]]) : changed
      XCTAssertEqual(reds, expected, strategy.name)
      // The box of red pixels is the reported bounding box.
      let box = try XCTUnwrap(result.differences?.boundingBox)
      XCTAssertEqual(reds.map { $0[0] }.min(), box.minX)
      XCTAssertEqual(reds.map { $0[0] }.max(), box.maxX)
      XCTAssertEqual(reds.map { $0[1] }.min(), box.minY)
      XCTAssertEqual(reds.map { $0[1] }.max(), box.maxY)
    }
    // The tolerated pixel shows its absolute difference dimmed to three quarters (2 → 1).
    XCTAssertEqual(
      ImageComparison.tolerance(5).differenceImage(image, reference)[15, 8],
      RGBAColor(red: 1, green: 0, blue: 0))
    // A tolerated difference never looks like a counted one, even at the largest tolerance.
    var white = reference
    white[0, 0] = RGBAColor(red: 255, green: 0, blue: 0)
    var black = reference
    black[0, 0] = RGBAColor(red: 0, green: 0, blue: 0)
    XCTAssertNotEqual(ImageComparison.tolerance(255).differenceImage(white, black)[0, 0], red)
  }

  func testDifferenceImage_perceptualFixture_redMatchesCount() throws {
    let a = try CoreFixtures.image("perceptual/text_subpixel_a.png")
    let b = try CoreFixtures.image("perceptual/text_subpixel_b.png")
    for includeAntiAliasing in [false, true] {
      let strategy = ImageComparison.perceptual(
        threshold: 0.1, includeAntiAliasing: includeAntiAliasing)
      let count = strategy.compare(a, to: b).differences?.differingPixelCount
      XCTAssertEqual(redPositions(strategy.differenceImage(a, b)).count, count)
      XCTAssertGreaterThan(count ?? 0, 0)
    }
  }

  func testDifferenceImage_sizeMismatch_isUnionWithUncoveredAreaRed() throws {
    let image = try RGBAImage(width: 5, height: 2, color: .white)
    let reference = try RGBAImage(width: 3, height: 4, color: .white)
    let difference = ImageComparison.exact.differenceImage(image, reference)
    XCTAssertEqual(difference.size, ImageSize(width: 5, height: 4))
    var uncovered = Set<[Int]>()
    for y in 0..<4 {
      for x in 0..<5 where !(x < 3 && y < 2) { uncovered.insert([x, y]) }
    }
    XCTAssertEqual(redPositions(difference), uncovered)
    XCTAssertEqual(uncovered.count, 20 - 6)
  }

  func testDifferenceImage_matchingPixels_areTheDimmedLumaForEveryColourAndAlpha() throws {
    // 4 Mpx covering every red and green value, blue in steps, and every alpha: the eight-wide
    // drawing must give exactly the integer formula of the documented palette.
    let side = 2048
    var pixels = [UInt8](repeating: 0, count: side * side * 4)
    for index in 0..<(side * side) {
      pixels[index * 4] = UInt8(index & 255)
      pixels[index * 4 + 1] = UInt8((index >> 8) & 255)
      pixels[index * 4 + 2] = UInt8(truncatingIfNeeded: (index >> 16) * 4 + (index & 3) * 61)
      pixels[index * 4 + 3] = index % 2 == 0 ? 255 : UInt8(truncatingIfNeeded: index &* 7)
    }
    let image = try RGBAImage(width: side, height: side, pixels: pixels)
    let difference = ImageComparison.exact.differenceImage(image, image)
    var mismatches = 0
    for index in 0..<(side * side) {
      let offset = index * 4
      let luma =
        (299 * Int(pixels[offset]) + 587 * Int(pixels[offset + 1]) + 114
          * Int(pixels[offset + 2])) / 1000
      let gray = UInt8(luma * Int(pixels[offset + 3]) / 255 / 4)
      if difference.pixels[offset..<(offset + 4)].elementsEqual([gray, gray, gray, 255]) == false {
        mismatches += 1
      }
    }
    XCTAssertEqual(mismatches, 0)
  }
}

extension DifferenceImageTests {
  func testDifferenceImage_opaqueGrey_isFloorOfWeightedSumOver4000ForEverySum() {
    // The opaque fast path replaces two divisions by one multiplication: check it for every
    // weighted sum 299 r + 587 g + 114 b can take (0 to 255 000), eight at a time as drawn.
    var mismatches: [Int] = []
    var sum = 0
    while sum <= 255_000 {
      var sums = SIMD8<Float>()
      for lane in 0..<8 { sums[lane] = Float(min(sum + lane, 255_000)) }
      let grays = DifferenceColors.opaqueGray(sums)
      for lane in 0..<8 where Int(grays[lane]) != min(sum + lane, 255_000) / 4000 {
        mismatches.append(sum + lane)
      }
      sum += 8
    }
    XCTAssertEqual(mismatches, [])
  }

  func testDifferenceImage_opaqueMatchingPixels_areTheDimmedLumaForEveryColour() throws {
    // Opaque rows take the one-multiplication path: every red and green, blue in steps.
    let side = 2048
    var pixels = [UInt8](repeating: 255, count: side * side * 4)
    for index in 0..<(side * side) {
      pixels[index * 4] = UInt8(index & 255)
      pixels[index * 4 + 1] = UInt8((index >> 8) & 255)
      pixels[index * 4 + 2] = UInt8(truncatingIfNeeded: (index >> 16) * 4 + (index & 3) * 61)
    }
    let image = try RGBAImage(width: side, height: side, pixels: pixels)
    let difference = ImageComparison.exact.differenceImage(image, image)
    var mismatches = 0
    for index in 0..<(side * side) {
      let offset = index * 4
      let luma =
        (299 * Int(pixels[offset]) + 587 * Int(pixels[offset + 1]) + 114
          * Int(pixels[offset + 2])) / 1000
      let gray = UInt8(luma * 255 / 255 / 4)
      if difference.pixels[offset..<(offset + 4)].elementsEqual([gray, gray, gray, 255]) == false {
        mismatches += 1
      }
    }
    XCTAssertEqual(mismatches, 0)
  }
}
