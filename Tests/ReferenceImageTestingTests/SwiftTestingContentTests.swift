import Foundation
import TestSupport
import XCTest

@testable import ReferenceImageTesting

/// Finding Swift Testing tests in a test executable, so that an XCTest run of a bundle that
/// holds some does not prove their references orphans.
final class SwiftTestingContentTests: XCTestCase {
  func testThisTestBundle_holdsSwiftTestingTests() throws {
    #if os(Linux)
      XCTAssertEqual(SwiftTestingContent.inThisExecutable, true, "this bundle has @Test tests")
    #else
      throw XCTSkip("the bundle is inspected on Linux only")
    #endif
  }

  func testSwiftExecutableWithoutTests_holdsNone() throws {
    #if os(Linux)
      // A Swift program has the section, empty: the runtime marks where it starts and ends.
      let executable = try XCTUnwrap(findBuiltMergeRefs(), "merge-refs is built with the tests")
      XCTAssertEqual(SwiftTestingContent.present(inExecutableAt: executable), false, executable)
    #else
      throw XCTSkip("the bundle is inspected on Linux only")
    #endif
  }

  func testNotAnExecutable_unknown() throws {
    let folder = try makeTemporaryFolder(self)
    let text = folder.appendingPathComponent("notes.txt")
    try Data("not an ELF file at all, but long enough to read a header of sixty-four bytes".utf8)
      .write(to: text)
    let truncated = folder.appendingPathComponent("cut")
    try Data([0x7F, 0x45, 0x4C, 0x46, 2, 1] + [UInt8](repeating: 0, count: 10)).write(to: truncated)

    XCTAssertNil(SwiftTestingContent.present(inExecutableAt: text.path))
    XCTAssertNil(SwiftTestingContent.present(inExecutableAt: truncated.path))
    XCTAssertNil(
      SwiftTestingContent.present(inExecutableAt: folder.appendingPathComponent("none").path))
  }

  /// `merge-refs` built beside this test bundle, by `swift build --build-tests`.
  private func findBuiltMergeRefs() -> String? {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<3 {
      let candidate = folder.appendingPathComponent("merge-refs").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      folder = folder.deletingLastPathComponent()
    }
    return nil
  }
}
