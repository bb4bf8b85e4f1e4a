import ReferenceContracts
import XCTest

final class TestLogDigestTests: XCTestCase {
  private let log = """
    [1/5] Testing TileTests.ArithmeticTests/testAlwaysFails
    Test Case 'ArithmeticTests.testAlwaysFails' started at 2026-12-07 18:21:49.107
    /p/Tests/TileTests/Checks/ArithmeticTests.swift:7: error: ArithmeticTests.testAlwaysFails : \
    XCTAssertEqual failed: ("\(String(repeating: "iVBORw0KGgo", count: 4000))") is not equal to ("3")
    Test Case 'ArithmeticTests.testAlwaysFails' failed (0.001 seconds)
    \t Executed 1 test, with 1 failure (0 unexpected) in 0.001 (0.001) seconds
    ReferenceImages: wrote 0 images (mode all) to /p/archives/a.zip
    ReferenceImages: wrote 2 images (mode all) to /p/archives/b.zip
    ReferenceImages: wrote 2 images (mode all) to /p/archives/b.zip
    ✘ Test badge() failed after 0.002 seconds with 1 issue.
    ✔ Test run with 3 tests in 1 suite failed after 0.01 seconds with 1 issue.
    """

  func testLines_countNameAndPointAtTheLog_withoutTheFailuresOwnOutput() {
    let lines = TestLogDigest(log: log).lines(logPath: "/p/log.txt")
    XCTAssertEqual(
      lines,
      [
        "  1 test process stored no image (its archive records which tests ran)",
        "  ReferenceImages: wrote 2 images (mode all) to /p/archives/b.zip (2 times)",
        "  ✔ Test run with 3 tests in 1 suite failed after 0.01 seconds with 1 issue.",
        "2 tests failed: ArithmeticTests.testAlwaysFails, badge(); their output is in the full "
          + "log: /p/log.txt",
      ])
  }

  func testLines_longLinesAreCutAndManyFailuresCounted() {
    let long = "ReferenceImages: " + String(repeating: "x", count: 500)
    let failures = (1...13).map { "Test Case 'C.test\($0)' failed (0.1 seconds)" }
    let lines = TestLogDigest(log: ([long] + failures).joined(separator: "\n"))
      .lines(logPath: "L")
    XCTAssertEqual(lines[0].count, 2 + TestLogDigest.width)
    XCTAssertTrue(lines[0].hasSuffix("…"))
    XCTAssertEqual(
      lines[1],
      "13 tests failed: " + (1...10).map { "C.test\($0)" }.joined(separator: ", ")
        + ", and 3 more; their output is in the full log: L")
  }

  func testLines_failedTestsNamesStopAtTheWidth_theRestCounted() {
    let names = (1...1000).map { "SomeRenderTests.testAVeryLongNamedRenderCase\($0)" }
    let log = names.map { "Test Case '\($0)' failed (0.1 seconds)" }.joined(separator: "\n")
    let line = TestLogDigest(log: log).failedTestsLine
    XCTAssertEqual(
      line,
      "1000 tests failed: SomeRenderTests.testAVeryLongNamedRenderCase1, "
        + "SomeRenderTests.testAVeryLongNamedRenderCase2, and 998 more")
    XCTAssertLessThanOrEqual(line.count, TestLogDigest.width)
    let one = TestLogDigest(log: "Test Case '\(String(repeating: "x", count: 400))' failed (1 s)")
    XCTAssertEqual(one.failedTestsLine.count, "1 test failed: ".count + TestLogDigest.width / 2)
  }

  func testLines_nothingFailed_saysSo() {
    XCTAssertEqual(
      TestLogDigest(log: "Test Case 'C.testA' passed (0.1 seconds)").lines(logPath: "L"),
      ["no test failed; full log: L"])
  }

  func testLines_aFailureThatNamesNoTest_saysSoNotThatNothingFailed() {
    XCTAssertEqual(
      TestLogDigest(log: "Exited with unexpected signal code 11").lines(
        logPath: "L", succeeded: false),
      ["the tests failed, and the log names no failed test (a crash?); full log: L"])
  }
}
