import XCTest

/// A test of the same target that has nothing to do with images and always fails, as an old
/// test of an adopting project may.
final class ArithmeticTests: XCTestCase {
  func testAlwaysFails() {
    XCTAssertEqual(1 + 1, 3, "a deliberate failure")
  }
}
