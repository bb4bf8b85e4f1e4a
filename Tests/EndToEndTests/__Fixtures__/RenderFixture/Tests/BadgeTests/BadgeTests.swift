import ReferenceImageTesting
import Shapes
import XCTest

final class BadgeTests: XCTestCase {
  func testPassingBadge() {
    assertImage(
      Shapes.badge(width: 60, color: RGBAColor(red: 60, green: 180, blue: 70)), named: "passing")
  }

  func testFailingBadge() {
    assertImage(
      Shapes.badge(width: 60, color: RGBAColor(red: 200, green: 50, blue: 40)), named: "failing")
  }

  func testWideBadge() {
    assertImage(
      Shapes.badge(width: 140, color: RGBAColor(red: 30, green: 90, blue: 200)), named: "wide",
      comparison: .tolerance(2))
  }
}

final class BadgeVariantTests: XCTestCase {
  func testNestedName() {
    assertImage(Shapes.badge(width: 30, color: .black), named: "variants/small-black")
  }
}
