import Foundation
import MergeTestSupport
import XCTest

@testable import ReferenceMerge

/// Two real paths that share a 64-bit key (`PathKey`, FNV-1a). The staging, the digest cache
/// and the shared-reference check find things by key and confirm them by other means: a shared
/// key may cost time, never a wrong file or a wrong verdict.
final class PathKeyCollisionTests: XCTestCase {
  /// Found by Brent's cycle search over FNV-1a of paths `k/<11 characters>.png`: a cycle of
  /// 144,888,969 steps, entered from two paths at once (four minutes of C on one core).
  static let colliding = ("k/V8gyHRrGjBD.png", "k/e1wa6vSs7MG.png")

  private var merge: MergeScenario!
  private let (first, second) = PathKeyCollisionTests.colliding

  override func setUpWithError() throws {
    merge = try MergeScenario(self)
    // A built package: the digest cache lives in `.build`.
    try FileManager.default.createDirectory(
      at: merge.destination.appendingPathComponent(".build"), withIntermediateDirectories: true)
  }

  func testThePaths_shareOneKey() {
    XCTAssertNotEqual(first, second)
    XCTAssertEqual(PathKey.of(first), PathKey.of(second))
  }

  /// Staged together from one source, found by key: each lands with its own bytes, and the
  /// digest cache that then holds both answers for each file apart.
  func testOneSource_bothLandWithTheirOwnBytes_andRerunsTellThemApart() throws {
    try merge.archive("run.zip", [first: .seed(1), second: .seed(2)])

    let landed = merge.run()

    XCTAssertEqual(landed.status, .success, "\(landed.problems)")
    XCTAssertEqual(landed.outcomes, [first: .added, second: .added])
    XCTAssertEqual(merge.bytes(first), try Pixels.seed(1).png())
    XCTAssertEqual(merge.bytes(second), try Pixels.seed(2).png())

    let rerun = merge.run()
    XCTAssertEqual(rerun.outcomes, [first: .unchanged, second: .unchanged])

    // The first file now holds the second's pixels: only it is put back.
    try merge.reference(first, bytes: try Pixels.seed(2).png())
    let repaired = merge.run()
    XCTAssertEqual(repaired.outcomes, [first: .updated, second: .unchanged])
    XCTAssertEqual(merge.bytes(first), try Pixels.seed(1).png())
    XCTAssertEqual(merge.bytes(second), try Pixels.seed(2).png())
  }

  /// Two tests in two shards, each rendering one of the paths: no path is shared.
  func testTwoTestsRenderingThePaths_areNotASharedReference() throws {
    for (shard, path, seed) in [("1", first, 1), ("2", second, 2)] {
      try merge.archive("shard\(shard).zip", shard: shard) { builder in
        try builder.add(path, try Pixels.seed(seed).image())
        builder.owners[path] = "ChartTests.test\(shard)()"
      }
    }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.problems, [])
    XCTAssertEqual(verdict.outcomes, [first: .added, second: .added])
    XCTAssertEqual(merge.bytes(second), try Pixels.seed(2).png())
  }
}
