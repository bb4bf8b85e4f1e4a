import XCTest

@testable import ReferenceArchive

final class EntryPathTests: XCTestCase {
  func testValidate_controlCharacters_refused() {
    for scalar in [0x01, 0x0A, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9B, 0x9F] as [UInt32] {
      let path = "Tests/a\(Character(Unicode.Scalar(scalar)!))b.png"
      XCTAssertEqual(
        EntryPath.validate(path), "the path contains control characters", "U+\(scalar)")
    }
  }

  func testValidate_printableNonASCII_accepted() {
    XCTAssertNil(EntryPath.validate("Tests/Größe/日本\u{A0}é.png"))
  }

  func testEscaped_controlCharacters_writtenAsHex() {
    XCTAssertEqual(EntryPath.escaped("a\u{1b}[2J\n\u{9b}é.png"), "a\\x1b[2J\\x0a\\x9bé.png")
    XCTAssertEqual(EntryPath.escaped("plain/path.png"), "plain/path.png")
  }
}
