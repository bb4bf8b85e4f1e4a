import XCTest

@testable import ReferenceImageCore

/// Constructed pairs with one known change each (and a mixture), classified from the exact
/// comparison's difference image as a failing `assertImage` classifies them.
final class ChangeClassifierTests: XCTestCase {
  private let green = RGBAColor(red: 0x16, green: 0xA3, blue: 0x4A)
  private let purple = RGBAColor(red: 0x93, green: 0x33, blue: 0xEA)

  private func classify(
    _ image: RGBAImage, _ reference: RGBAImage, comparison: ImageComparison = .exact
  ) -> ChangeClassification {
    ChangeClassifier.classify(
      image, reference: reference,
      differenceImage: comparison.differenceImage(image, reference))
  }

  // MARK: - One kind each

  func testClassify_textBlockMovedByTwoAndOne_isMovedWithTheOffset() throws {
    let reference = try canvas(120, 60) { drawText(&$0, atX: 10, y: 8) }
    let image = try canvas(120, 60) { drawText(&$0, atX: 12, y: 9) }
    let regions = classify(image, reference).regions
    XCTAssertEqual(regions.map(\.kind), [.moved(dx: 2, dy: 1)])
    // The box holds the text at both places: 40 wide, 10 tall, one of them 2 right, 1 down.
    XCTAssertEqual(regions.first?.box.minX, 10)
    XCTAssertEqual(regions.first?.box.maxY, 9 + TextBlock.height - 1)
  }

  func testClassify_textBlockMovedUpAndLeft_saysTheNegativeOffset() throws {
    let reference = try canvas(120, 60) { drawText(&$0, atX: 30, y: 20) }
    let image = try canvas(120, 60) { drawText(&$0, atX: 27, y: 18) }
    XCTAssertEqual(classify(image, reference).regions.map(\.kind), [.moved(dx: -3, dy: -2)])
  }

  func testClassify_wholeImageShifted_everyRegionMovedBySameOffset() throws {
    let reference = try canvas(200, 120) { image in
      drawText(&image, atX: 10, y: 10)
      drawText(&image, atX: 120, y: 90)
      fillDisk(&image, centerX: 150, centerY: 30, radius: 14, color: green)
    }
    let image = try canvas(200, 120) { image in
      drawText(&image, atX: 11, y: 10)
      drawText(&image, atX: 121, y: 90)
      fillDisk(&image, centerX: 151, centerY: 30, radius: 14, color: green)
    }
    let kinds = classify(image, reference).regions.map(\.kind)
    XCTAssertEqual(kinds.count, 3)
    XCTAssertEqual(Set(kinds), [.moved(dx: 1, dy: 0)])
  }

  func testClassify_filledShapeRecoloured_saysTheMainMapping() throws {
    let reference = try canvas(80, 80) {
      fillDisk(&$0, centerX: 40, centerY: 40, radius: 25, color: green)
    }
    let image = try canvas(80, 80) {
      fillDisk(&$0, centerX: 40, centerY: 40, radius: 25, color: purple)
    }
    let regions = classify(image, reference).regions
    XCTAssertEqual(
      regions.map(\.kind), [.recoloured(ColourMapping(from: green, to: purple))])
    XCTAssertEqual(regions.first?.description.hasSuffix("recoloured #16A34A → #9333EA"), true)
  }

  func testClassify_colourMappedToTwoNearColoursEqually_namesTheOneMetFirst_everyTime() throws {
    // Half the box becomes purple, half a purple two levels off, as often each: a tie that
    // the order the colours were met settles, never how a hash table happens to iterate.
    let nearPurple = RGBAColor(red: 0x95, green: 0x33, blue: 0xEA)
    let reference = try canvas(60, 40) {
      fillRect(&$0, x: 10, y: 10, width: 40, height: 20, color: green)
    }
    let image = try canvas(60, 40) {
      fillRect(&$0, x: 10, y: 10, width: 40, height: 10, color: purple)
      fillRect(&$0, x: 10, y: 20, width: 40, height: 10, color: nearPurple)
    }
    for _ in 0..<20 {
      XCTAssertEqual(
        classify(image, reference).regions.map(\.kind),
        [.recoloured(ColourMapping(from: green, to: purple))])
    }
  }

  func testClassify_gradientBarsRecolouredWithRounding_isRecolouredNotNoise() throws {
    // Bars shaded top to bottom, as the example's charts are; the new colours round a level
    // differently from row to row, so one old colour maps to new ones a level apart.
    func shaded(_ base: RGBAColor, jitter: Bool) throws -> RGBAImage {
      try canvas(120, 90) { image in
        for bar in 0..<3 {
          for y in (20 + bar * 10)..<80 {
            let light = UInt8((80 - y) / 2)
            let wobble: UInt8 = jitter && (y + bar) % 3 == 0 ? 1 : 0
            let colour = RGBAColor(
              red: base.red &+ light, green: base.green &+ light &+ wobble,
              blue: min(255, Int(base.blue) + Int(light)) == 255 ? 255 : base.blue &+ light)
            for x in (10 + bar * 35)..<(30 + bar * 35) { image[x, y] = colour }
          }
        }
      }
    }
    let reference = try shaded(RGBAColor(red: 0x3B, green: 0x82, blue: 0xD6), jitter: false)
    let image = try shaded(RGBAColor(red: 0x1D, green: 0x4E, blue: 0xB8), jitter: true)
    let kinds = classify(image, reference).regions.map(\.kind)
    XCTAssertFalse(kinds.isEmpty)
    XCTAssertTrue(kinds.allSatisfy { $0.name == "recoloured" }, "\(kinds)")
  }

  func testClassify_lineRecolouredOverAFaintTint_namesTheLinesMapping() throws {
    // A 3-pixel line recoloured, and the large area under it tinted by 3 levels: the mapping a
    // person notices is the line's, though the tint has more pixels.
    let tint = RGBAColor(red: 240, green: 244, blue: 250)
    let newTint = RGBAColor(red: 237, green: 241, blue: 250)
    func chart(line: RGBAColor, area: RGBAColor) throws -> RGBAImage {
      try canvas(100, 60) { image in
        fillRect(&image, x: 10, y: 20, width: 80, height: 35, color: area)
        fillRect(&image, x: 10, y: 17, width: 80, height: 3, color: line)
      }
    }
    let reference = try chart(line: green, area: tint)
    let image = try chart(line: purple, area: newTint)
    XCTAssertEqual(
      classify(image, reference).regions.map(\.kind),
      [.recoloured(ColourMapping(from: green, to: purple))])
  }

  func testClassify_boxAddedAndOneRemoved_areAddedAndRemoved() throws {
    let reference = try canvas(100, 70) {
      fillRect(&$0, x: 5, y: 5, width: 12, height: 8, color: .black)
    }
    let image = try canvas(100, 70) {
      fillRect(&$0, x: 60, y: 40, width: 20, height: 10, color: purple)
    }
    let regions = classify(image, reference).regions
    XCTAssertEqual(regions.map(\.kind), [.removed, .added])
    XCTAssertEqual(
      regions.map(\.box),
      [
        PixelBox(minX: 5, minY: 5, maxX: 16, maxY: 12),
        PixelBox(minX: 60, minY: 40, maxX: 79, maxY: 49),
      ])
    XCTAssertEqual(regions.map(\.changedPixelCount), [96, 200])
  }

  func testClassify_shapeAddedOnTransparency_isAdded() throws {
    let reference = try RGBAImage(width: 40, height: 40, color: .clear)
    var image = reference
    fillDisk(&image, centerX: 20, centerY: 20, radius: 8, color: green)
    XCTAssertEqual(classify(image, reference).regions.map(\.kind), [.added])
  }

  func testClassify_antiAliasedEdgesOnly_saysTheLargestDifference() throws {
    // The same disk with a radius a third of a pixel larger: only its rim pixels change.
    let reference = try canvas(80, 80) {
      fillDisk(&$0, centerX: 40, centerY: 40, radius: 20, color: .black)
    }
    let image = try canvas(80, 80) {
      fillDisk(&$0, centerX: 40, centerY: 40, radius: 20.3, color: .black)
    }
    let largest = largestChannelDifference(image, reference)
    XCTAssertGreaterThan(largest, ChangeClassifier.noiseLevel, "more than noise")
    XCTAssertEqual(
      classify(image, reference).regions.map(\.kind),
      [.antiAliasingOrNoise(largestDifference: largest)])
  }

  func testClassify_changesWithinAFewLevels_areNoise() throws {
    let reference = try canvas(50, 50) {
      fillRect(&$0, x: 10, y: 10, width: 20, height: 20, color: green)
    }
    let slightly = RGBAColor(red: 0x16 + 3, green: 0xA3 - 5, blue: 0x4A)
    let image = try canvas(50, 50) {
      fillRect(&$0, x: 10, y: 10, width: 20, height: 20, color: slightly)
    }
    XCTAssertEqual(
      classify(image, reference).regions.map(\.kind),
      [.antiAliasingOrNoise(largestDifference: 5)])
  }

  func testClassify_textReplacedByOtherText_isChanged() throws {
    let reference = try canvas(120, 60) { drawText(&$0, atX: 10, y: 8, seed: 1) }
    let image = try canvas(120, 60) { drawText(&$0, atX: 10, y: 8, seed: 2) }
    XCTAssertEqual(classify(image, reference).regions.map(\.kind), [.changed])
  }

  func testClassify_textMadeBolder_isChangedNotAdded() throws {
    // Faux bold, as a renderer without a bold face draws it: the text again one pixel right.
    // Every changed pixel was background, but the old strokes stay inside the box: the text
    // changed; nothing stands apart from what was there.
    let reference = try canvas(120, 60) { drawText(&$0, atX: 10, y: 8) }
    let image = try canvas(120, 60) {
      drawText(&$0, atX: 11, y: 8)
      drawText(&$0, atX: 10, y: 8)
    }
    let regions = classify(image, reference).regions
    XCTAssertEqual(regions.map(\.kind), [.changed])
    XCTAssertEqual(regions.first?.box.minX, 11, "the box holds only the new pixels")
  }

  func testClassify_thinStrokesInFauxBold_isChangedNotMoved() throws {
    // One-pixel strokes drawn again a pixel to the right: each new pixel equals its left
    // neighbour in the reference, and the pixel right of it is background in both, so an
    // offset of (1, 0) explains every changed pixel both ways. Nothing left its place, though:
    // the strokes stay, so it is no move.
    func strokes(bold: Bool) throws -> RGBAImage {
      try canvas(80, 30) { image in
        for x in stride(from: 10, to: 70, by: 4) {
          fillRect(&image, x: x, y: 8, width: 1, height: 12, color: .black)
          if bold { fillRect(&image, x: x + 1, y: 8, width: 1, height: 12, color: .black) }
        }
      }
    }
    XCTAssertEqual(
      classify(try strokes(bold: true), try strokes(bold: false)).regions.map(\.kind), [.changed])
  }

  func testClassify_sizeChange_isResizedAndTheCommonAreaClassified() throws {
    let reference = try canvas(60, 40) { drawText(&$0, atX: 5, y: 5) }
    let image = try canvas(80, 40) { drawText(&$0, atX: 7, y: 6) }
    let regions = classify(image, reference).regions
    XCTAssertEqual(
      regions.map(\.kind),
      [
        .resized(
          actual: ImageSize(width: 80, height: 40), reference: ImageSize(width: 60, height: 40)),
        .moved(dx: 2, dy: 1),
      ])
    XCTAssertEqual(regions.first?.box, PixelBox(minX: 60, minY: 0, maxX: 79, maxY: 39))
    XCTAssertEqual(regions.first?.changedPixelCount, 20 * 40)
  }

  func testClassify_sizeChangeBothWays_marksTheStripsEachImageAloneCovers() throws {
    // Wider reference, taller render: a strip of each, aligned top-left.
    let reference = try canvas(50, 30) { _ in }
    let image = try canvas(40, 45) { _ in }
    let regions = classify(image, reference).regions
    XCTAssertEqual(
      regions.map(\.box),
      [
        PixelBox(minX: 40, minY: 0, maxX: 49, maxY: 29),
        PixelBox(minX: 0, minY: 30, maxX: 39, maxY: 44),
      ])
    XCTAssertTrue(regions.allSatisfy { $0.kind.name == "resized" })
  }

  // MARK: - Mixtures and messages

  func testClassify_twoKindsInTwoRegions_eachHasItsOwn() throws {
    let reference = try canvas(200, 80) { image in
      drawText(&image, atX: 10, y: 10)
      fillDisk(&image, centerX: 150, centerY: 40, radius: 20, color: green)
    }
    let image = try canvas(200, 80) { image in
      drawText(&image, atX: 12, y: 11)
      fillDisk(&image, centerX: 150, centerY: 40, radius: 20, color: purple)
    }
    let regions = classify(image, reference).regions
    XCTAssertEqual(
      regions.map(\.kind).sorted { $0.name < $1.name },
      [.moved(dx: 2, dy: 1), .recoloured(ColourMapping(from: green, to: purple))])
  }

  func testClassify_perceptualComparison_regionsAreWhatItCounted() throws {
    // The perceptual comparison tolerates the anti-aliased rim: no region at all, where the
    // exact one finds the rim.
    let reference = try canvas(80, 80) {
      fillDisk(&$0, centerX: 40, centerY: 40, radius: 20, color: .black)
    }
    let image = try canvas(80, 80) {
      fillDisk(&$0, centerX: 40, centerY: 40, radius: 20.3, color: .black)
    }
    XCTAssertEqual(classify(image, reference, comparison: .perceptual()).regions, [])
    XCTAssertEqual(classify(image, reference).regions.count, 1)
  }

  func testLines_manyRegions_listsTheLargestThreeThenCounts() throws {
    let reference = try canvas(300, 40) { _ in }
    let image = try canvas(300, 40) { image in
      for (index, x) in [10, 70, 130, 190, 250].enumerated() {
        fillRect(&image, x: x, y: 5, width: 4 + index * 2, height: 10, color: .black)
      }
    }
    let lines = classify(image, reference).lines()
    XCTAssertEqual(
      lines,
      [
        "region x 250…261, y 5…14: added", "region x 190…199, y 5…14: added",
        "region x 130…137, y 5…14: added", "and 2 more regions (2 added)",
      ])
  }

  func testKindDescriptions_sayTheParameters() {
    XCTAssertEqual(ChangeKind.moved(dx: 2, dy: 1).description, "moved by (2, 1)")
    XCTAssertEqual(
      ChangeKind.recoloured(ColourMapping(from: green, to: purple.withAlpha(0x80))).description,
      "recoloured #16A34A → #9333EA80")
    XCTAssertEqual(
      ChangeKind.antiAliasingOrNoise(largestDifference: 12).description,
      "anti-aliasing or noise only (largest difference 12)")
    XCTAssertEqual(
      ChangeKind.resized(
        actual: ImageSize(width: 32, height: 32), reference: ImageSize(width: 16, height: 16)
      ).description, "resized to 32×32 from reference 16×16")
    XCTAssertEqual(ChangeKind.names.count, 7)
  }

  // MARK: - Drawing

  private func canvas(_ width: Int, _ height: Int, _ draw: (inout RGBAImage) -> Void) throws
    -> RGBAImage
  {
    var image = try RGBAImage(width: width, height: height, color: .white)
    draw(&image)
    return image
  }

  /// A block of glyph-like marks, 40 × 10: strokes of black with grey anti-aliased ends, from
  /// a fixed pseudo-random pattern so that no smaller shift matches it.
  private enum TextBlock {
    static let width = 40
    static let height = 10
  }

  private func drawText(_ image: inout RGBAImage, atX left: Int, y top: Int, seed: UInt64 = 7) {
    var state = seed
    for y in 0..<TextBlock.height {
      for x in 0..<TextBlock.width {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let value = Int(state >> 59)  // 0…31
        let gap = x % 6 == 5  // letters apart
        if gap { continue }
        if value < 12 {
          image[left + x, top + y] = .black
        } else if value < 15 {
          let grey = UInt8(80 + value * 8)
          image[left + x, top + y] = RGBAColor(red: grey, green: grey, blue: grey)
        }
      }
    }
  }

  /// A disk with anti-aliased rim: coverage from 4 × 4 samples per pixel, over white.
  private func fillDisk(
    _ image: inout RGBAImage, centerX: Double, centerY: Double, radius: Double, color: RGBAColor
  ) {
    for y in 0..<image.height {
      for x in 0..<image.width {
        var covered = 0
        for sy in 0..<4 {
          for sx in 0..<4 {
            let dx = Double(x) + (Double(sx) + 0.5) / 4 - centerX
            let dy = Double(y) + (Double(sy) + 0.5) / 4 - centerY
            if dx * dx + dy * dy <= radius * radius { covered += 1 }
          }
        }
        guard covered > 0 else { continue }
        let under = image[x, y]
        func mix(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
          UInt8((Int(top) * covered + Int(bottom) * (16 - covered) + 8) / 16)
        }
        image[x, y] =
          under.alpha == 0
          ? RGBAColor(
            red: color.red, green: color.green, blue: color.blue,
            alpha: UInt8(255 * covered / 16))
          : RGBAColor(
            red: mix(color.red, under.red), green: mix(color.green, under.green),
            blue: mix(color.blue, under.blue))
      }
    }
  }

  private func fillRect(
    _ image: inout RGBAImage, x: Int, y: Int, width: Int, height: Int, color: RGBAColor
  ) {
    for row in y..<(y + height) { for column in x..<(x + width) { image[column, row] = color } }
  }

  private func largestChannelDifference(_ a: RGBAImage, _ b: RGBAImage) -> Int {
    zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
  }
}

extension RGBAColor {
  fileprivate func withAlpha(_ alpha: UInt8) -> RGBAColor {
    RGBAColor(red: red, green: green, blue: blue, alpha: alpha)
  }
}
