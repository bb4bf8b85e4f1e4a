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

  func testValidate_onePass_refusesAsTheRulesOneByOne() {
    // Pieces that make every rule fire, alone and together, in every order.
    let pieces = [
      "a", "b.png", "/", "//", ".", "..", "...", "\\", ":", "C:", "é:", "é", "日本", "\u{0}",
      "\u{1B}", "\u{7F}", "\u{85}", "\u{A0}", "\u{9F}", "Â", "x/../y", "./", "/.", "a:b",
      String(repeating: "é", count: 600), String(repeating: "z", count: 1020),
    ]
    var generator = SystemRandomNumberGenerator()
    var checked = Set<String>(pieces)
    for _ in 0..<20_000 {
      let count = Int.random(in: 1...6, using: &generator)
      checked.insert((0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined())
    }
    var reasons = Set<String>()
    for path in checked.union([""]) {
      let expected = Self.validateRuleByRule(path)
      XCTAssertEqual(EntryPath.validate(path), expected, path.debugDescription)
      reasons.insert(expected ?? "accepted")
    }
    XCTAssertEqual(reasons.count, 10, "every rule fired, and some paths passed: \(reasons)")
  }

  /// The rules as they were written first, a pass each: the oracle.
  private static func validateRuleByRule(_ path: String) -> String? {
    let bytes = path.utf8
    guard let first = bytes.first else { return "the path is empty" }
    if first == UInt8(ascii: "/") || first == UInt8(ascii: "\\") { return "the path is absolute" }
    if bytes.contains(UInt8(ascii: "\\")) { return "the path contains a backslash" }
    if bytes.contains(0) { return "the path contains a NUL byte" }
    if path.unicodeScalars.contains(where: EntryPath.isControl) {
      return "the path contains control characters"
    }
    if path.count > 1024 { return "the path is longer than 1024 characters" }
    let components = path.split(separator: "/", omittingEmptySubsequences: false)
    if components.contains("..") { return "the path climbs out with '..'" }
    if components.contains(where: { $0.isEmpty || $0 == "." }) {
      return "the path has empty or '.' components"
    }
    if let drive = components.first, drive.last == ":", drive.count == 2 {
      return "the path starts with a drive letter"
    }
    return nil
  }
}
