import Foundation
import TestSupport
import XCTest

/// The result-bundle fuzz target's committed seeds (and any past crash kept beside them) replay
/// without a failure in a normal build.
final class FuzzSeedReplayTests: XCTestCase {
  func testTheResultBundleFuzzSeedsReplay() throws {
    let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Fuzz/ResultBundle")
    let run = try runProcess(try builtProduct("FuzzResultBundle").path, [seeds.path])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertTrue(run.output.contains("3 inputs replayed, no failure"), run.all)
  }
}
