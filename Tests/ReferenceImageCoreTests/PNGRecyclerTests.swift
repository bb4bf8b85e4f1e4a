import XCTest

@testable import ReferenceImageCore

final class PNGRecyclerTests: XCTestCase {
  func testDecode_recycledImages_sameImagesAsDecode() throws {
    var generator = SplitMix64(seed: 41)
    let recycler = PNGDecoder.Recycler()
    // Images of 1 MiB of pixels and more are kept; the small ones between them decode into
    // kept memory too.
    for (width, height) in [(600, 500), (600, 500), (7, 90), (700, 400), (1, 1), (512, 512)] {
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
    let first = try RGBAImage(width: 600, height: 500, color: .white)
    let held = first
    recycler.recycle(first)
    XCTAssertEqual(recycler.keptCount, 1)
    let other = try PNGEncoder().encode(try RGBAImage(width: 600, height: 500, color: .clear))
    XCTAssertEqual(
      try recycler.decode(other), try RGBAImage(width: 600, height: 500, color: .clear))
    XCTAssertEqual(held, try RGBAImage(width: 600, height: 500, color: .white))
  }

  func testRecycle_keepsAtMostFourImages() throws {
    let recycler = PNGDecoder.Recycler()
    for _ in 0..<6 { recycler.recycle(try RGBAImage(width: 512, height: 512, color: .white)) }
    XCTAssertEqual(recycler.keptCount, 4)
  }

  func testRecycle_smallImages_areNotKept() throws {
    let recycler = PNGDecoder.Recycler()
    recycler.recycle(try RGBAImage(width: 64, height: 64, color: .white))
    recycler.recycle(try RGBAImage(width: 511, height: 512, color: .white))
    XCTAssertEqual(recycler.keptCount, 0, "below 1 MiB of pixels the allocator reuses memory")
  }
}
