import Foundation
import ReferenceImageTesting
import Shapes
import Testing

/// Tests that use a reference another test owns: `smallCells()` asks for the reference of the
/// XCTest `CheckerTests.testSmallCells` (another process, another framework) with other pixels,
/// and the two ring tests ask for one name in one process. Runs only when
/// `RENDER_FIXTURE_SHARED=1` (DailyLoopEndToEndTests sets it), so the other end-to-end runs see
/// no new test or image.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["RENDER_FIXTURE_SHARED"] == "1"))
struct SharedReference {
  @Test func smallCells() {
    assertImage(
      Shapes.checker(size: 64, cell: 8), named: "small-cells",
      referenceFolder: URL(fileURLWithPath: "Tests/ChartTests/__References__/CheckerTests"))
  }

  @Test func ringThin() {
    assertImage(Shapes.checker(size: 32, cell: 2), named: "ring")
  }

  @Test func ringThick() {
    assertImage(Shapes.checker(size: 32, cell: 4), named: "ring")
  }
}
