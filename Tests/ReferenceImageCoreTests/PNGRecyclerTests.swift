import XCTest

@testable import ReferenceImageCore

final class PNGRecyclerTests: XCTestCase {
  func testDecode_recycledImages_sameImagesAsDecode() throws {
    var generator = SplitMix64(seed: 41)
    let recycler = PNGDecoder.Recycler()
    for (width, height) in [(40, 30), (40, 30), (7, 90), (300, 200), (1, 1)] {
      let image = PNGCommonCaseTests.randomImage(width: width, height: height, using: &generator)
      for channels in [3, 4] {
        let png = PNGCommonCaseTests.png(
          image, channels: channels, filters: [0, 1, 2, 3, 4], idatSize: 700)
        let decoded = try recycler.decode(png)
        XCTAssertEqual(decoded, try PNGDecoder().decode(png), "\(width)×\(height)")
        recycler.recycle(decoded)
      }
    }
  }

  func testRecycle_imageStillHeldElsewhere_keepsItsPixels() throws {
    let recycler = PNGDecoder.Recycler()
    let first = try RGBAImage(width: 30, height: 20, color: .white)
    let held = first
    recycler.recycle(first)
    let other = try PNGEncoder().encode(try RGBAImage(width: 30, height: 20, color: .clear))
    XCTAssertEqual(try recycler.decode(other), try RGBAImage(width: 30, height: 20, color: .clear))
    XCTAssertEqual(held, try RGBAImage(width: 30, height: 20, color: .white))
  }

  func testRecycle_keepsAtMostFourImages() throws {
    let recycler = PNGDecoder.Recycler()
    for _ in 0..<6 { recycler.recycle(try RGBAImage(width: 2, height: 2, color: .white)) }
    XCTAssertEqual(recycler.keptCount, 4)
  }
}
