import Foundation
import ReferenceContracts
import XCTest

/// The exit statuses are a contract CI scripts rely on: the numbers are pinned here, once, and
/// every other reader (the help, the plugin, the tests) reads the enum.
final class ExitStatusTests: XCTestCase {
  /// The checkout's root folder (three levels above this file).
  private let checkout = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  func testRawValues_areTheDocumentedNumbers() {
    XCTAssertEqual(
      ExitStatus.allCases.map { "\($0.rawValue) \($0.name)" },
      [
        "0 success", "1 write failed", "2 conflicts", "3 refused input", "4 check found changes",
        "5 unstable renders", "64 invalid arguments",
      ])
  }

  func testHelpBlock_listsEveryStatusInItsColumn_within80Columns() {
    let lines = ExitStatus.helpBlock.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.first, "Exit codes:")
    let numbered = lines.dropFirst().filter { !$0.hasPrefix("      ") }
    XCTAssertEqual(
      numbered.map { $0.dropFirst(2).prefix(4).trimmingCharacters(in: .whitespaces) },
      ExitStatus.allCases.map { String($0.rawValue) })
    XCTAssertEqual(lines.count, 1 + ExitStatus.allCases.map(\.meaning.count).reduce(0, +))
    for line in lines { XCTAssertLessThanOrEqual(line.count, 80, line) }
  }

  /// Every refusal the merge exits 3 for is listed, the variant declaration's two included.
  func testRefusedInput_namesAnInvalidDeclarationAndAnUndeclaredPlatform() {
    let meaning = ExitStatus.refusedInput.meaning.joined(separator: " ")
    XCTAssertTrue(meaning.contains("an invalid ReferenceVariants.json"), meaning)
    XCTAssertTrue(meaning.contains("renders of a platform it does not declare"), meaning)
  }

  /// A plugin cannot import the package's libraries: it compiles the enum's file through a
  /// symbolic link, which must stay a link (a copy would drift).
  func testPlugin_compilesTheEnumsOwnFile() throws {
    let link = checkout.appendingPathComponent("Plugins/RegenerateReferences/ExitStatus.swift")
    let target = try FileManager.default.destinationOfSymbolicLink(atPath: link.path)
    XCTAssertEqual(
      link.deletingLastPathComponent().appendingPathComponent(target).standardizedFileURL.path,
      checkout.appendingPathComponent("Sources/ReferenceContracts/ExitStatus.swift").path)
  }

  /// The file is compiled by the plugin on its own, so it may import nothing.
  func testEnumFile_importsNothing() throws {
    let source = try String(
      contentsOf: checkout.appendingPathComponent("Sources/ReferenceContracts/ExitStatus.swift"),
      encoding: .utf8)
    XCTAssertFalse(source.split(separator: "\n").contains { $0.hasPrefix("import ") })
  }
}
