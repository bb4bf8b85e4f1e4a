import ReferenceImageTesting
import XCTest

/// A test file directly in the target's folder: its folder is the one it always had.
final class FlatTests: XCTestCase {
  func testFlat() throws {
    assertImage(try RGBAImage(width: 8, height: 8, color: .black), named: "flat")
  }
}
