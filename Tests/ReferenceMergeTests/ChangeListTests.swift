import XCTest

@testable import ReferenceMerge

/// A summary's changes are derived from the plan's items (`MergeSummary.ChangeList`), which
/// keeps where they are: every change must be the item it was, in order, whether few items,
/// most of them, or all are changes.
final class ChangeListTests: XCTestCase {
  private func items(_ outcomes: [MergePlan.Outcome]) -> MergePlan.ItemList {
    MergePlan.ItemList(
      outcomes.enumerated().map { position, outcome in
        MergePlan.Item(
          path: String(format: "T/__References__/image%04d.png", position), outcome: outcome,
          chosen: nil, rivals: [], conflictingPixels: nil, resolvedByNewest: false)
      })
  }

  private func assertChanges(
    of outcomes: [MergePlan.Outcome], file: StaticString = #filePath, line: UInt = #line
  ) {
    let items = items(outcomes)
    let list = MergeSummary.ChangeList(deriving: items, unreached: []) { item in
      MergeSummary.Change(
        path: item.path, outcome: item.outcome, sources: [], workers: [],
        resolvedByNewest: false)
    }
    let expected = items.filter { $0.outcome != .unchanged }
    XCTAssertEqual(list.map(\.path), expected.map(\.path), file: file, line: line)
    XCTAssertEqual(list.map(\.outcome), expected.map(\.outcome), file: file, line: line)
    XCTAssertEqual(
      list.matching(.updated).map(\.path), expected.filter { $0.outcome == .updated }.map(\.path),
      file: file, line: line)
  }

  func testChanges_fewAmongMany_areTheChangedItems() {
    assertChanges(of: (0..<200).map { $0 % 10 == 3 ? .updated : .unchanged })
  }

  func testChanges_allButAFew_areTheChangedItems() {
    for unchanged in [[0], [199], [0, 1, 2], [5, 77, 78, 150, 199], Array(0..<99)] {
      assertChanges(
        of: (0..<200).map { unchanged.contains($0) ? .unchanged : $0 % 3 == 0 ? .added : .updated })
    }
  }

  func testChanges_allOrNone_areTheChangedItems() {
    assertChanges(of: Array(repeating: .added, count: 50))
    assertChanges(of: Array(repeating: .unchanged, count: 50))
    assertChanges(of: [])
  }
}
