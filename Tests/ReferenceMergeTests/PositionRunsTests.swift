import XCTest

@testable import ReferenceMerge

/// The positions of the files a merge wrote are kept as runs (`PositionRuns`): each comes
/// back, in the order it came.
final class PositionRunsTests: XCTestCase {
  func testPositions_comeBackInTheirOrder() {
    let orders: [[Int]] = [
      [], [0], Array(0..<1000), [5, 6, 7, 2, 3, 9, 8, 8, 10, 0, 1, 2, 100_000],
      Array((0..<50).reversed()) + Array(50..<60),
    ]
    for positions in orders {
      var runs = PositionRuns()
      for position in positions { runs.append(position) }
      XCTAssertEqual(Array(runs), positions)
      XCTAssertEqual(runs.isEmpty, positions.isEmpty)
    }
  }
}
