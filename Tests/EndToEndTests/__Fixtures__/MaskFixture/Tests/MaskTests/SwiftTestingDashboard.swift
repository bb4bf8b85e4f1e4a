import ReferenceImageTesting
import Testing

@Suite struct SwiftTestingDashboard {
  /// Perceptual everywhere but the clock, in a Swift Testing test.
  @Test func dashboard() {
    assertImage(
      Dashboard.render(), named: "dashboard-swift-testing", comparison: .perceptual(),
      ignoring: [Dashboard.clock])
  }
}
