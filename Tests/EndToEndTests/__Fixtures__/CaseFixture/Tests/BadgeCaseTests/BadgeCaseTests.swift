import Foundation
import ReferenceImageTesting
import Testing

/// A square badge; `CASE_FIXTURE_CHANGE=1` renders it in another shade.
func badge(_ count: Int) -> RGBAImage {
  let changed = ProcessInfo.processInfo.environment["CASE_FIXTURE_CHANGE"] == "1"
  let shade = UInt8(truncatingIfNeeded: count * 5 + (changed ? 60 : 0))
  return try! RGBAImage(
    width: 10, height: 10, color: RGBAColor(red: shade, green: 128, blue: 0))
}

/// A suite whose trait keeps the environment's mode and settings.
@Suite(.referenceImages()) struct BadgeRenderTests {
  @Test(arguments: [1, 42]) func countBadge(count: Int) {
    assertImage(badge(count), named: "count-\(count)")
  }

  @Test func plainBadge() {
    assertImage(badge(7), named: "plain")
  }
}
