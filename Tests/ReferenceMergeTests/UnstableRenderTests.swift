import Foundation
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// Renders of one test from replicated runs (`IMAGE_GENERATION_REPLICAS`): equal renders land
/// once; different ones are unstable, never land, and end with `ExitStatus.unstableRenders`,
/// while the rest lands.
final class UnstableRenderTests: XCTestCase {
  private var merge: MergeScenario!

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: "Tests/XTests/__References__/C")
  }

  /// `MergeScenario.replicatedRuns`.
  private func writeRuns(flakySeeds: [Int], replicas: Int? = 2) throws {
    try merge.replicatedRuns(flakySeeds: flakySeeds, replicas: replicas)
  }

  func testReplicas_differentRenders_unstable_restLands() throws {
    try writeRuns(flakySeeds: [1, 2])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .unstableRenders, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["flaky": .unstable, "steady": .added])
    XCTAssertEqual(
      verdict.workers(of: "flaky"), ["ci-host pid 201", "ci-host pid 200"], "both workers")
    XCTAssertFalse(merge.exists("flaky"), "an unstable render never lands")
    XCTAssertTrue(merge.exists("steady"), "the stable render lands")
  }

  func testReplicas_differentRenders_newestDoesNotLandThem() throws {
    try writeRuns(flakySeeds: [1, 2])
    merge.options.onConflict = .newest

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .unstableRenders, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes["flaky"], .unstable)
    XCTAssertFalse(merge.exists("flaky"))
  }

  func testReplicas_equalRenders_landOnce() throws {
    try writeRuns(flakySeeds: [1, 1])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["flaky": .added, "steady": .added])
    XCTAssertTrue(merge.exists("flaky"))
  }

  func testWithoutReplicas_differentRenders_stayAConflict() throws {
    try writeRuns(flakySeeds: [1, 2], replicas: nil)

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .conflicts, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes["flaky"], .conflict)
    XCTAssertFalse(merge.exists("steady"), "a conflict stops the whole merge, as before")
  }
}
