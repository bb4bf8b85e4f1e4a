import XCTest

@testable import ReferenceImageTesting

final class FailureArtifactNameTests: XCTestCase {
  func testCaseSuffix_plainArguments_readable() {
    XCTAssertEqual(FailureArtifacts.caseSuffix("size → 16"), "[size=16]")
    XCTAssertEqual(
      FailureArtifacts.caseSuffix("text → \"a/b\", n → 2"), "[text=\"a_b\", n=2]")
  }

  /// A file name holds at most 255 bytes: a long or non-ASCII label is cut at 80 bytes and
  /// tagged with its digest, so two long labels never name one artifact.
  func testCaseSuffix_longNonASCII_boundedInBytesAndDistinct() {
    let first = FailureArtifacts.caseSuffix("text → " + String(repeating: "設定", count: 60) + "a")
    let second = FailureArtifacts.caseSuffix("text → " + String(repeating: "設定", count: 60) + "b")
    XCTAssertNotEqual(first, second)
    XCTAssertLessThanOrEqual(first.utf8.count, 100)
    XCTAssertFalse(first.contains("/"))
  }
}
