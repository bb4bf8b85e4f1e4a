import ReferenceImageTesting
import XCTest

final class DashboardTests: XCTestCase {
  /// Exact everywhere but the clock.
  func testDashboard() {
    assertImage(Dashboard.render(), named: "dashboard", ignoring: [Dashboard.clock])
  }

  /// The same render with nothing ignored: the clock counts.
  func testDashboardWithClock() {
    assertImage(Dashboard.render(), named: "dashboard-with-clock")
  }

  /// A label that moves by a pixel between platforms passes; the clock is ignored.
  func testShiftedLabel() {
    assertImage(
      Dashboard.render(), named: "shifted-label", comparison: .exact.shiftTolerance(1),
      ignoring: [Dashboard.clock])
  }

  /// Colours within 2 levels pass; the clock is ignored.
  func testTolerantColours() {
    assertImage(
      Dashboard.render(), named: "tolerant-colours", comparison: .tolerance(2),
      ignoring: [Dashboard.clock])
  }
}
