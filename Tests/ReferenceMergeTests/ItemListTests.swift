import ReferenceContracts
import ReferenceImageCore
import XCTest

@testable import ReferenceMerge

/// The plan's items are kept as runs (`MergePlan.ItemList`): each must come back as the item it
/// was, in order, by position and by walking, and items alike must share a run.
final class ItemListTests: XCTestCase {
  private typealias Item = MergePlan.Item

  /// A source's list of `count` images.
  private func sourceImages(_ source: Int32, count: Int) -> MergePlan.SourceImages {
    let images = (0..<count).map { index in
      SourceInventory.Image(
        path: String(format: "Tests/__References__/S\(source)/image%04d.png", index),
        pngSHA256: SHA256Digest(of: Array("png\(source).\(index)".utf8)),
        pixelSHA256: SHA256Digest(of: Array("pixels\(source).\(index)".utf8)), width: 1,
        height: 1, test: "S\(source).test()", isArchived: true, destinationHeldIt: false)
    }
    return MergePlan.SourceImages(source: source, images: SourceInventory.ImageList(images))
  }

  private func item(_ list: MergePlan.SourceImages, _ index: Int32, _ outcome: MergePlan.Outcome)
    -> Item
  {
    Item(anchor: .image(list), imageIndex: index, outcome: outcome)
  }

  private func valueItem(_ path: String, _ outcome: MergePlan.Outcome) -> Item {
    Item(
      path: path, outcome: outcome, chosen: nil, rivals: [], conflictingPixels: 7,
      resolvedByNewest: false)
  }

  private func assertSame(
    _ list: MergePlan.ItemList, _ items: [Item], file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertEqual(list.count, items.count, file: file, line: line)
    let walked = Array(list)
    XCTAssertEqual(walked.count, items.count, file: file, line: line)
    for (position, item) in items.enumerated() {
      for (kept, way) in [(list[position], "by position"), (walked[position], "walked")] {
        let what = "item \(position), \(way)"
        XCTAssertEqual(kept.path, item.path, what, file: file, line: line)
        XCTAssertEqual(kept.outcome, item.outcome, what, file: file, line: line)
        XCTAssertEqual(kept.chosen, item.chosen, what, file: file, line: line)
        XCTAssertEqual(kept.conflictingPixels, item.conflictingPixels, what, file: file, line: line)
        XCTAssertEqual(kept.imageIndex, item.imageIndex, what, file: file, line: line)
      }
    }
  }

  func testItemList_oneSourcesItemsAlike_areOneRun() {
    let source = sourceImages(0, count: 1000)
    let items = (0..<1000).map { item(source, Int32($0), .unchanged) }
    let list = MergePlan.ItemList(items)
    assertSame(list, items)
    XCTAssertEqual(list.runCount, 1)
    XCTAssertEqual(MemoryLayout<MergePlan.ItemList.Run>.stride, 16)
    XCTAssertEqual(MemoryLayout<MergePlan.ItemList.OtherOutcome>.stride, 8)
  }

  /// A fleet's archive with every tenth reference updated, its first among them: one run, the
  /// updates beside it, not the rest.
  func testItemList_everyTenthUpdated_isOneRunWithTheUpdatesBeside() {
    let source = sourceImages(0, count: 1000)
    let items = (0..<1000).map { (index: Int) -> Item in
      item(source, Int32(index), index % 10 == 0 ? .updated : .unchanged)
    }
    let list = MergePlan.ItemList(items)
    assertSame(list, items)
    XCTAssertEqual(list.runCount, 1)
    XCTAssertEqual(list.otherOutcomeCount, 100)
  }

  /// Outcomes that change within a source's run, in stretches and in turns: every item keeps
  /// its own.
  func testItemList_outcomesThatChangeWithinASource_stayOneRun() {
    let source = sourceImages(0, count: 1000)
    let cycle: [MergePlan.Outcome] = [.added, .updated, .unchanged]
    let items = (0..<1000).map { (index: Int) -> Item in
      let outcome = index < 500 ? cycle[index % 3] : cycle[(index / 70) % 3]
      return item(source, Int32(index), outcome)
    }
    let list = MergePlan.ItemList(items)
    assertSame(list, items)
    XCTAssertEqual(list.runCount, 1)
  }

  func testItemList_breaksRunsWhereSourceOrImageChanges_andKeepsEveryItem() {
    let (a, b) = (sourceImages(0, count: 50), sourceImages(1, count: 50))
    var items: [Item] = []
    items += (0..<10).map { item(a, Int32($0), .added) }  // one run
    items += (10..<20).map { item(a, Int32($0), .unchanged) }  // the outcome changes alone
    items += (0..<5).map { item(b, Int32($0), .unchanged) }  // the source changes
    items += (20..<25).map { item(a, Int32($0), .unchanged) }  // back to a: a new run
    items += [item(a, 30, .unchanged), item(a, 29, .unchanged)]  // a gap, then backwards
    items.append(valueItem("Tests/__References__/orphan.png", .orphan))  // an item of its own
    items.append(valueItem("Tests/__References__/orphan2.png", .orphan))  // never joined
    items += (31..<33).map { item(a, Int32($0), .unchanged) }
    let list = MergePlan.ItemList(items)
    assertSame(list, items)
    XCTAssertEqual(list.runCount, 8)
  }

  func testItemList_appendAndRemove_keepTheRestInOrder() {
    let source = sourceImages(0, count: 100)
    let items = (0..<100).map { item(source, Int32($0), $0 % 30 < 20 ? .added : .updated) }
    var list = MergePlan.ItemList(items.prefix(60))
    list += items.dropFirst(60)
    assertSame(list, items)
    list.removeAll { $0.imageIndex % 7 == 3 }
    assertSame(list, items.filter { $0.imageIndex % 7 != 3 })
    list.removeAll { _ in true }
    assertSame(list, [])
    XCTAssertEqual(list.runCount, 0)
  }
}
