import Foundation
import ReferenceContracts
import TestSupport
import XCTest

/// The variant declaration: its file format, the running variant, the chain and the layout.
final class ReferenceVariantsTests: XCTestCase {
  private let declaration = #"""
    {"schemaVersion": 1, "base": "linux-x86_64",
     "variants": {"linux-arm64": ["linux"], "linux": [], "macos": []}}
    """#

  private func decode(_ text: String) throws(VariantError) -> ReferenceVariants {
    try ReferenceVariants.decode(Data(text.utf8), path: "/p/ReferenceVariants.json")
  }

  func testDecode_chainsEndWithTheBase() throws {
    let variants = try decode(declaration)

    XCTAssertEqual(variants.basePlatform, "linux-x86_64")
    XCTAssertEqual(variants.names, ["linux", "linux-arm64", "macos"])
    XCTAssertEqual(variants.chain(of: "linux-arm64"), ["linux-arm64", "linux", nil])
    XCTAssertEqual(variants.chain(of: "macos"), ["macos", nil])
    XCTAssertEqual(variants.chain(of: nil), [nil])
  }

  func testRunning_platformDecides_mostSpecificDeclaredName() throws {
    let variants = try decode(declaration)

    XCTAssertEqual(try variants.running(requested: nil, platform: "linux-x86_64"), .base)
    XCTAssertEqual(
      try variants.running(requested: nil, platform: "linux-arm64"), .declared("linux-arm64"))
    XCTAssertEqual(
      try variants.running(requested: nil, platform: "linux-riscv64"), .declared("linux"))
    XCTAssertEqual(
      try variants.running(requested: nil, platform: "macos-arm64"), .declared("macos"))
    XCTAssertEqual(
      try variants.running(requested: nil, platform: "windows-x86_64"),
      .undeclared(platform: "windows-x86_64"))
  }

  func testRunning_requested_winsOverThePlatform_andMustBeDeclared() throws {
    let variants = try decode(declaration)

    XCTAssertEqual(
      try variants.running(requested: "macos", platform: "linux-x86_64"), .declared("macos"))
    XCTAssertEqual(try variants.running(requested: "base", platform: "macos-arm64"), .base)
    XCTAssertThrowsError(try variants.running(requested: "ios", platform: "linux-x86_64")) {
      let message = "\($0)"
      XCTAssertTrue(message.contains(#"variant "ios" is not declared"#), message)
      XCTAssertTrue(message.contains("declared: linux, linux-arm64, macos"), message)
      XCTAssertTrue(message.contains("IMAGE_REFERENCE_VARIANT"), message)
    }
  }

  func testDecode_invalidDeclarations_nameTheFileAndTheFault() {
    let cases: [(String, String)] = [
      (#"{"schemaVersion": 2, "base": "a", "variants": {}}"#, "schema version 2 is not 1"),
      (#"{"schemaVersion": 1, "base": "", "variants": {}}"#, #""base" names no platform"#),
      (#"{"schemaVersion": 1, "base": "a", "variants": {"B": []}}"#, #"variant name "B""#),
      (#"{"schemaVersion": 1, "base": "a", "variants": {"base": []}}"#, #"variant name "base""#),
      (#"{"schemaVersion": 1, "base": "a", "variants": {"a": []}}"#, "is the base platform"),
      (
        #"{"schemaVersion": 1, "base": "a", "variants": {"x": ["y"]}}"#,
        #""y", which is not declared"#
      ),
      (#"{"schemaVersion": 1, "base": "a", "variants": {"x": ["x"]}}"#, "which is itself"),
      (#"{"schemaVersion": 1, "base": "a", "variants": {"x": ["y", "y"], "y": []}}"#, "twice"),
      ("not json", "is not JSON"),
    ]
    for (text, expected) in cases {
      XCTAssertThrowsError(try decode(text), text) {
        let message = "\($0)"
        XCTAssertTrue(message.hasPrefix("/p/ReferenceVariants.json is not a valid"), message)
        XCTAssertTrue(message.contains(expected), "\(message) should contain \(expected)")
      }
    }
  }

  func testRead_noFile_meansNoVariants() throws {
    let folder = try makeTemporaryFolder(self)

    XCTAssertNil(try ReferenceVariants.read(packageRoot: folder))
  }

  func testVariantPath_roundTrips_forNamesWithSlashesDotsAtSignsAndLetters() throws {
    let variants = try decode(declaration)
    let bases = [
      "T/__References__/XTests/bars.png", "T/__References__/XTests/a.b/c.d.png",
      "T/__References__/XTests/icon@2x.png", "T/__References__/XTests/größe/日本.png",
      "T/__References__/XTests/x@linux.png", "bars.png",
    ]
    for base in bases {
      XCTAssertNil(VariantPath.split(base, declared: variants), base)
      for variant in variants.names {
        let path = VariantPath.path(of: base, variant: variant)
        XCTAssertTrue(path.hasSuffix("@@\(variant).png"), path)
        let split = try XCTUnwrap(VariantPath.split(path, declared: variants), path)
        XCTAssertEqual(split.basePath, base)
        XCTAssertEqual(split.variant, variant)
      }
    }
    XCTAssertEqual(VariantPath.path(of: "a/b.png", variant: nil), "a/b.png")
    XCTAssertNil(VariantPath.split("a/b@@ios.png", declared: variants), "ios is not declared")
    XCTAssertNil(VariantPath.split("a@@macos/b.png", declared: variants), "a folder, not a file")
  }

  func testPlatform_current_isOSDashArchitecture() {
    let platform = ReferencePlatform.current
    #if os(Linux) && arch(x86_64)
      XCTAssertEqual(platform, "linux-x86_64")
    #endif
    XCTAssertEqual(platform.split(separator: "-").count, 2, platform)
  }
}
