import Foundation
import ReferenceImageCore
import XCTest

final class ImageLoaderTests: XCTestCase {
  private let url = URL(string: "https://images.example.com/a.png")!

  func testNone_cachedIsNil_loadThrowsNamingTheURL() async {
    XCTAssertNil(ImageLoader.none.cached(url))
    do {
      _ = try await ImageLoader.none.load(url)
      XCTFail("load should throw")
    } catch {
      XCTAssertEqual(error as? ImageLoaderError, .unavailable(url))
      XCTAssertEqual("\(error)", "no image for https://images.example.com/a.png")
    }
  }

  func testConstant_answersFromTheTable() async throws {
    let image = try RGBAImage(width: 2, height: 2, color: .white)
    let loader = ImageLoader.constant([url: image])
    XCTAssertEqual(loader.cached(url), image)
    let loaded = try await loader.load(url)
    XCTAssertEqual(loaded, image)
    XCTAssertNil(loader.cached(URL(string: "https://images.example.com/b.png")!))
  }
}
