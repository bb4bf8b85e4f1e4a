import XCTest

/// A test case that can hold back its failures: while `capturing` is set, each failure's message
/// goes to `captured` instead of failing the test, so a test can read what `assertImage` said.
class FailureCapturingTestCase: XCTestCase {
  /// Failure messages recorded while `capturing` is set.
  var captured: [String] = []
  /// Whether failures are captured rather than recorded.
  var capturing = false

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
    expected: Bool
  ) {
    guard capturing else {
      return super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
    captured.append(description)
  }
}
