import Foundation
import ReferenceImageTesting
import XCTest

/// A renderer that writes PNG files: its output becomes the pixels `assertImage` compares.
final class RGBAImagePNGFileTests: FailureCapturingTestCase {
  private func tile() throws -> RGBAImage {
    var image = try RGBAImage(width: 5, height: 3, color: .white)
    image[1, 2] = RGBAColor(red: 9, green: 80, blue: 200, alpha: 128)
    return image
  }

  func testInitPNGData_decodesTheEncodedPixels() throws {
    let image = try tile()
    XCTAssertEqual(try RGBAImage(pngData: try PNGEncoder().encode(image)), image)
  }

  func testInitContentsOfPNG_readsAFileARendererWrote() throws {
    let file = try makeTemporaryFolder(self).appendingPathComponent("tile.png")
    try Data(try PNGEncoder().encode(try tile())).write(to: file)
    XCTAssertEqual(try RGBAImage(contentsOfPNG: file), try tile())
  }

  func testInitContentsOfPNG_missingFile_throwsNamingIt() throws {
    let file = try makeTemporaryFolder(self).appendingPathComponent("never-written.png")
    XCTAssertThrowsError(try RGBAImage(contentsOfPNG: file)) { error in
      guard case .unreadableImage(let path, let reason)? = error as? ReferenceImageError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(path, file.path)
      XCTAssertEqual(reason, "no such file")
    }
  }

  func testInitContentsOfPNG_notAPNG_throwsNamingIt() throws {
    let file = try makeTemporaryFolder(self).appendingPathComponent("text.png")
    try Data("not a png".utf8).write(to: file)
    XCTAssertThrowsError(try RGBAImage(contentsOfPNG: file)) { error in
      XCTAssertTrue("\(error)".hasPrefix("could not read the image \(file.path): "), "\(error)")
    }
  }

  func testAssertImagePNGFile_unreadableFile_failsNamingItAndTheFix() throws {
    let file = try makeTemporaryFolder(self).appendingPathComponent("missing.png")
    capturing = true
    assertImage(pngFile: file, named: "missing")
    capturing = false
    XCTAssertEqual(
      captured,
      [
        "failed - could not read the image \(file.path): no such file; check that the "
          + "renderer wrote a PNG there before the assertion"
      ])
  }
}
