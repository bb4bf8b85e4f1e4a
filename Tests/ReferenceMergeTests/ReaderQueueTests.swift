import XCTest

@testable import ReferenceMerge

/// The k-way merge of sorted lists that the planner, the shared-reference check and the
/// digest cache's runs go through: every path once, in order, with each list holding it.
final class ReaderQueueTests: XCTestCase {
  func testForEachPath_disjointOverlappingAndTiedLists_giveEachPathOnceInOrder() {
    var generator = SystemRandomNumberGenerator()
    for round in 0..<200 {
      let listCount = Int.random(in: 1...12, using: &generator)
      let alphabet = round.isMultiple(of: 2) ? 40 : 400  // many ties, then few
      var lists: [[String]] = (0..<listCount).map { _ in
        let count = Int.random(in: 0...30, using: &generator)
        let names = (0..<count).map { _ in
          String(format: "Refs/%03d.png", Int.random(in: 0..<alphabet, using: &generator))
        }
        return Array(Set(names)).sorted()
      }
      if round.isMultiple(of: 3) {
        // Disjoint runs one after the other, as a fleet's archives of one test each are.
        var start = 0
        lists = lists.map { list in
          defer { start += list.count }
          return list.indices.map { String(format: "Refs/%05d.png", start + $0) }
        }
      }
      XCTAssertTrue(
        merged(lists) == expected(lists), "round \(round): \(lists.map(\.count)) paths a list")
    }
  }

  func testForEachPath_aPathInEveryList_comesOnceWithEveryListInOrder() {
    let lists = [["a.png", "b.png"], ["b.png"], ["b.png", "c.png"], ["a.png", "b.png"]]
    XCTAssertEqual(
      merged(lists),
      [
        .init(path: "a.png", lists: [0, 3]), .init(path: "b.png", lists: [0, 1, 2, 3]),
        .init(path: "c.png", lists: [2]),
      ])
  }

  private struct Group: Equatable {
    let path: String
    let lists: [Int]
  }

  private func merged(_ lists: [[String]]) -> [Group] {
    let pools = lists.map { $0.map(PooledPath.init) }
    var groups: [Group] = []
    ReaderQueue.forEachPath(
      inLists: lists.map(\.count), path: { pools[Int($0.source)][Int($0.image)] }
    ) { places in
      let paths = Set(places.map { lists[Int($0.source)][Int($0.image)] })
      XCTAssertEqual(paths.count, 1, "one path a call")
      groups.append(.init(path: paths.first!, lists: places.map { Int($0.source) }))
    }
    return groups
  }

  private func expected(_ lists: [[String]]) -> [Group] {
    Set(lists.joined()).sorted().map { path in
      .init(path: path, lists: lists.indices.filter { lists[$0].contains(path) })
    }
  }
}
