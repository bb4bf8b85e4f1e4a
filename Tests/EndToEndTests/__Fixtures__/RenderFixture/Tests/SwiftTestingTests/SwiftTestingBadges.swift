import ReferenceImageTesting
import Shapes
import Testing

@Suite struct SwiftTestingBadges {
  @Test(arguments: [40, 80, 120])
  func badge(width: Int) {
    assertImage(
      Shapes.badge(width: width, color: RGBAColor(red: 90, green: 90, blue: 90)),
      named: "badge-\(width)")
  }

  @Test func bars() {
    assertImage(Shapes.bars([5, 15, 25]), named: "bars")
  }
}
