import Foundation
import XCTest

// Tests that store no image: the shard records must still show that they ran.
final class LabelTests: XCTestCase {
  func testQuiet() { XCTAssertEqual("label".count, 5) }

  func testSlowQuiet() {
    Thread.sleep(forTimeInterval: 0.4)
    XCTAssertEqual("slow label".uppercased(), "SLOW LABEL")
  }
}
