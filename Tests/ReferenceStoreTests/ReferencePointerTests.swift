import ReferenceImageCore
import ReferenceStore
import TestSupport
import XCTest

final class ReferencePointerTests: XCTestCase {
  private func png(_ color: RGBAColor = RGBAColor(red: 10, green: 20, blue: 30)) throws -> [UInt8] {
    try PNGEncoder().encode(RGBAImage(width: 7, height: 5, color: color))
  }

  func testPointer_ofAPNG_roundTripsThroughItsText() throws {
    let file = try png()
    let pointer = try XCTUnwrap(ReferencePointer(png: file))
    let digest = try XCTUnwrap(PNGPixelDigest.read(fromPNG: file))
    XCTAssertEqual(pointer.pixels, digest)
    XCTAssertEqual(pointer.object, ObjectKey(of: file))
    XCTAssertEqual(pointer.objectSize, file.count)
    let text = pointer.text
    XCTAssertEqual(
      text,
      """
      reference-pointer 1
      pixel-sha256 \(digest.pixelSHA256)
      pixel-xxh3 \(try XCTUnwrap(digest.pixelXXH3))
      size 7x5
      object \(SHA256.hex(file))
      object-size \(file.count)

      """)
    XCTAssertEqual(try ReferencePointer(parsing: Array(text.utf8), path: "a.png.ref"), pointer)
  }

  func testPointer_ofAPNGWithoutDigest_isNil() {
    XCTAssertNil(ReferencePointer(png: Array("not a png".utf8)))
  }

  func testParsing_refusesEachDamageByName() throws {
    let good = try XCTUnwrap(ReferencePointer(png: try png())).text
    func reason(_ text: String) -> String {
      do {
        _ = try ReferencePointer(parsing: Array(text.utf8), path: "x.png.ref")
        return "accepted"
      } catch {
        return error.description
      }
    }
    let lines = good.split(separator: "\n").map(String.init)
    func replacing(_ index: Int, with line: String) -> String {
      var copy = lines
      copy[index] = line
      return copy.joined(separator: "\n") + "\n"
    }
    XCTAssertTrue(reason(replacing(0, with: "reference-pointer 2")).contains("format version"))
    XCTAssertTrue(reason(replacing(1, with: "pixel-sha256 XYZ")).contains("pixel-sha256"))
    XCTAssertTrue(
      reason(replacing(2, with: "pixel-xxh3 " + String(repeating: "g", count: 32)))
        .contains("pixel-xxh3"))
    XCTAssertTrue(reason(replacing(3, with: "size 0x5")).contains("size"))
    XCTAssertTrue(
      reason(replacing(4, with: "object ../../etc/passwd")).contains("object is not 64"))
    XCTAssertTrue(reason(replacing(5, with: "object-size -3")).contains("object-size"))
    XCTAssertTrue(reason(good + "extra line\n").contains("unknown line 'extra'"))
    XCTAssertTrue(reason(good + lines[1] + "\n").contains("appears twice"))
    XCTAssertTrue(reason(String(repeating: "a", count: 2000)).contains("over 1024 bytes"))
    XCTAssertTrue(reason(replacing(1, with: "pixel-sha256")).contains("not 'name value'"))
    XCTAssertEqual(reason(good), "accepted")
  }

  func testPaths_derivedFromTheReferencePath() {
    XCTAssertEqual(
      ReferencePointer.path(for: "Tests/A/__References__/B/c.png"),
      "Tests/A/__References__/B/c.png.ref")
    XCTAssertEqual(ReferencePointer.referencePath(of: "x/c.png.ref"), "x/c.png")
    XCTAssertNil(ReferencePointer.referencePath(of: "x/c.ref"))
  }
}
