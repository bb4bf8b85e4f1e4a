import Foundation
import MergeTestSupport
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import ReferenceReview
import ReferenceStore
import TestSupport
import XCTest

/// Merges into a package whose references live in a folder store (`ReferenceStore.json`):
/// the tree keeps pointers, the store the PNGs, and every outcome is decided as for PNGs.
final class StoredReferenceMergeTests: XCTestCase {
  private func scenario() throws -> (MergeScenario, FolderStore) {
    let merge = try MergeScenario(self)
    let store = FolderStore(folder: merge.root.appendingPathComponent("store"))
    let configuration = #"{"version": 1, "store": "folder", "folder": "../store"}"#
    try Data(configuration.utf8).write(
      to: merge.destination.appendingPathComponent(StoreConfiguration.fileName))
    return (merge, store)
  }

  private func pointerURL(_ merge: MergeScenario, _ name: String) -> URL {
    URL(fileURLWithPath: merge.url(name).path + ReferencePointer.pathExtension)
  }

  private func pointer(_ merge: MergeScenario, _ name: String) throws -> ReferencePointer? {
    guard let data = try? Data(contentsOf: pointerURL(merge, name)) else { return nil }
    return try ReferencePointer(parsing: Array(data), path: name)
  }

  func testFirstMerge_writesPointers_andUploadsEachObjectOnce() throws {
    let (merge, store) = try scenario()
    try merge.archive("a.zip", ["chart": .seed(1), "twin": .seed(1), "line": .seed(2)])
    try merge.archive("b.zip", ["other": .seed(1)], host: "other-host")
    let verdict = merge.run()
    XCTAssertEqual(verdict.status, .success)
    XCTAssertEqual(
      verdict.outcomes, ["chart": .added, "twin": .added, "line": .added, "other": .added])
    for name in ["chart", "twin", "line", "other"] {
      XCTAssertFalse(merge.exists(name), "\(name): no PNG in the tree")
      let pointer = try XCTUnwrap(try pointer(merge, name), name)
      let object = try StoredObject.fetch(pointer.object, from: store)
      XCTAssertEqual(
        try PNGDecoder().decode(object), try Pixels.seed(name == "line" ? 2 : 1).image())
    }
    XCTAssertEqual(try store.list().count, 2, "one object per distinct PNG")
    XCTAssertEqual(
      verdict.conclusion.summary.store, StoreUploads(name: store.folder.path, uploaded: 2))
    let rerun = merge.run()
    XCTAssertEqual(rerun.conclusion.summary.store?.uploaded, 0, "nothing to upload again")
  }

  func testRerun_isUnchanged_andAChangeUpdatesThePointer() throws {
    let (merge, store) = try scenario()
    try merge.archive("a.zip", ["chart": .seed(1), "line": .seed(2)])
    XCTAssertEqual(merge.run().status, .success)
    let first = try pointer(merge, "chart")
    let again = merge.run()
    XCTAssertEqual(again.outcomes, ["chart": .unchanged, "line": .unchanged])
    XCTAssertEqual(try pointer(merge, "chart"), first)
    merge.sources = []
    try merge.archive("b.zip", ["chart": .seed(3), "line": .seed(2)])
    let changed = merge.run()
    XCTAssertEqual(changed.outcomes, ["chart": .updated, "line": .unchanged])
    let now = try XCTUnwrap(try pointer(merge, "chart"))
    XCTAssertNotEqual(now, first)
    XCTAssertEqual(
      try PNGDecoder().decode(try StoredObject.fetch(now.object, from: store)),
      try Pixels.seed(3).image())
  }

  func testPNGReference_withTheSamePixels_isUnchanged_andAChangeMigratesItToAPointer() throws {
    let (merge, _) = try scenario()
    try merge.reference("kept", .seed(1))
    try merge.reference("chart", .seed(1))
    try merge.archive("a.zip", ["kept": .seed(1), "chart": .seed(2)])
    let verdict = merge.run()
    XCTAssertEqual(verdict.outcomes, ["kept": .unchanged, "chart": .updated])
    XCTAssertTrue(merge.exists("kept"), "an unchanged PNG stays as it is")
    XCTAssertNil(try pointer(merge, "kept"))
    XCTAssertFalse(merge.exists("chart"), "an updated PNG becomes a pointer")
    XCTAssertNotNil(try pointer(merge, "chart"))
  }

  func testOrphanPointers_areFound_andPruned() throws {
    let (merge, _) = try scenario()
    try merge.archive("a.zip", ["chart": .seed(1), "gone": .seed(2)]) { $0.completion = .finished }
    XCTAssertEqual(merge.run().status, .success)
    merge.sources = []
    try merge.archive("b.zip", ["chart": .seed(1)]) { $0.completion = .finished }
    merge.options.prune = true
    let verdict = merge.run()
    XCTAssertEqual(verdict.outcomes["gone"], .orphan)
    XCTAssertNil(try pointer(merge, "gone"), "the pointer is pruned")
    XCTAssertNotNil(try pointer(merge, "chart"))
  }

  func testPNGBesideItsPointer_isRefusedByName() throws {
    let (merge, _) = try scenario()
    try merge.archive("a.zip", ["chart": .seed(1)])
    XCTAssertEqual(merge.run().status, .success)
    try merge.reference("chart", .seed(1))
    merge.sources = []
    try merge.archive("b.zip", ["chart": .seed(2)])
    let verdict = merge.run()
    XCTAssertEqual(verdict.status, .refusedInput)
    let message = verdict.conclusion.problems.map(\.description).joined()
    XCTAssertTrue(message.contains("both \(merge.path("chart")) and its pointer"), message)
  }

  func testBadPointer_isRefusedByName() throws {
    let (merge, _) = try scenario()
    try merge.archive("a.zip", ["chart": .seed(1)])
    XCTAssertEqual(merge.run().status, .success)
    try Data("reference-pointer 1\nobject ../../x\n".utf8).write(to: pointerURL(merge, "chart"))
    let verdict = merge.run()
    XCTAssertEqual(verdict.status, .refusedInput)
    let message = verdict.conclusion.problems.map(\.description).joined()
    XCTAssertTrue(message.contains("is not a reference pointer"), message)
  }

  func testUnwritableStore_landsNoPointer() throws {
    let (merge, _) = try scenario()
    let blocker = merge.root.appendingPathComponent("store")
    try Data("a file where the store's folder should be".utf8).write(to: blocker)
    try merge.archive("a.zip", ["chart": .seed(1)])
    let verdict = merge.run()
    XCTAssertEqual(verdict.status, .writeFailed)
    XCTAssertNil(try pointer(merge, "chart"), "no pointer to an object that is not stored")
    XCTAssertFalse(merge.exists("chart"))
  }

  func testInterruptedUpload_leavesNoPointerToAMissingObject_andARerunFinishes() throws {
    let (merge, store) = try scenario()
    try merge.archive("a.zip", ["chart": .seed(1), "line": .seed(2), "dots": .seed(3)])
    // The fan-out folder of one object is a file: that upload fails, the others land.
    let blocked = ObjectKey(of: try Pixels.seed(2).png())
    try FileManager.default.createDirectory(at: store.folder, withIntermediateDirectories: true)
    let fan = store.folder.appendingPathComponent(String(blocked.hex.prefix(2)))
    try Data("in the way".utf8).write(to: fan)
    let failed = merge.run()
    XCTAssertEqual(failed.status, .writeFailed)
    for name in ["chart", "line", "dots"] {
      guard let pointer = try pointer(merge, name) else { continue }
      XCTAssertTrue(try store.has(pointer.object), "\(name)'s pointer names a stored object")
    }
    XCTAssertNil(try pointer(merge, "line"), "no pointer for the object that is not stored")
    try FileManager.default.removeItem(at: fan)
    let rerun = merge.run()
    XCTAssertEqual(rerun.status, .success)
    for name in ["chart", "line", "dots"] {
      let pointer = try XCTUnwrap(try pointer(merge, name), name)
      XCTAssertTrue(try store.has(pointer.object))
    }
  }

  func testTwoMergesIntoOneStoreAtOnce_bothLand_eachObjectWhole() throws {
    let (first, store) = try scenario()
    let second = try MergeScenario(self)
    let configuration =
      "{\"version\": 1, \"store\": \"folder\", \"folder\": \"\(store.folder.path)\"}"
    try Data(configuration.utf8).write(
      to: second.destination.appendingPathComponent(StoreConfiguration.fileName))
    let images: KeyValuePairs<String, Pixels> = [
      "a": .seed(1), "b": .seed(2), "c": .seed(3), "d": .seed(4), "e": .seed(5),
    ]
    try first.archive("a.zip", images)
    try second.archive("a.zip", images)
    let verdicts = ResultBox()
    nonisolated(unsafe) let scenarios = [first, second]
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      verdicts.set(index, scenarios[index].run().status)
    }
    XCTAssertEqual(verdicts.values, [.success, .success])
    XCTAssertEqual(try store.list().count, 5)
    for key in try store.list() { XCTAssertNoThrow(try StoredObject.fetch(key, from: store)) }
  }

  func testVariants_comparedWithTheBasesPointer() throws {
    let (merge, _) = try scenario()
    try merge.declareVariants()
    try merge.archive("base.zip", ["a": .seed(1), "b": .seed(1)])
    XCTAssertEqual(merge.run().status, .success)
    merge.sources = []
    try merge.archive(
      "arm.zip",
      [variantName("a", "linux-arm64"): .seed(1), variantName("b", "linux-arm64"): .seed(2)])
    let verdict = merge.run()
    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes[variantName("b", "linux-arm64")], .added)
    XCTAssertEqual(verdict.plan.matchingFallback, [merge.path(variantName("a", "linux-arm64"))])
    XCTAssertNotNil(try pointer(merge, variantName("b", "linux-arm64")))
    XCTAssertNil(try pointer(merge, variantName("a", "linux-arm64")), "equal to the base")
  }

  func testApprovals_boundToThePointersPixels() throws {
    let (merge, _) = try scenario()
    try merge.archive("a.zip", ["chart": .seed(1), "line": .seed(2)])
    XCTAssertEqual(merge.run().status, .success)
    merge.sources = []
    try merge.archive("b.zip", ["chart": .seed(11), "line": .seed(12)])
    func digest(_ pixels: Pixels) throws -> SHA256Digest {
      SHA256Digest(hex: SHA256.hex(try pixels.image().pixels))!
    }
    // Reviewed against what the pointer names: lands. Against other "before" pixels: refused.
    merge.options.include = IncludeFilter(
      patterns: [merge.path("chart"), merge.path("line")],
      approvals: [
        .init(
          path: merge.path("chart"), before: try digest(.seed(1)), after: try digest(.seed(11))),
        .init(path: merge.path("line"), before: try digest(.seed(7)), after: try digest(.seed(12))),
      ])
    let verdict = merge.run()
    XCTAssertEqual(verdict.status, .refusedInput)
    XCTAssertEqual(verdict.problems, ["changedSinceReview"])
    XCTAssertEqual(verdict.refusedPaths, ["line"])
    merge.options.include = IncludeFilter(
      patterns: [merge.path("chart")],
      approvals: [
        .init(path: merge.path("chart"), before: try digest(.seed(1)), after: try digest(.seed(11)))
      ])
    let landed = merge.run()
    XCTAssertEqual(landed.status, .success, "\(landed.problems)")
    XCTAssertEqual(landed.outcomes["chart"], .updated)
    XCTAssertEqual(try pointer(merge, "chart")?.pixels.pixelSHA256, try digest(.seed(11)))
  }

  func testCheck_seesPointersUpToDate_andOutOfDate() throws {
    let (merge, _) = try scenario()
    try merge.archive("a.zip", ["chart": .seed(1)])
    XCTAssertEqual(merge.run().status, .success)
    XCTAssertFalse(merge.plan().conclusion.hasChanges, "up to date")
    merge.sources = []
    try merge.archive("b.zip", ["chart": .seed(2)])
    XCTAssertTrue(merge.plan().conclusion.hasChanges, "out of date")
  }

  func testReviewReport_showsTheStoredReferenceAsBefore() throws {
    let (merge, store) = try scenario()
    try merge.archive("a.zip", ["chart": .seed(1)])
    XCTAssertEqual(merge.run().status, .success)
    let before = try StoredObject.fetch(
      try XCTUnwrap(try pointer(merge, "chart")).object, from: store)
    merge.sources = []
    try merge.archive("b.zip", ["chart": .seed(2)])
    merge.reportWriter = ReviewReport.write(_:request:)
    let report = merge.root.appendingPathComponent("review")
    XCTAssertEqual(merge.plan(report: report).status, .success)
    var found = false
    let enumerator = FileManager.default.enumerator(atPath: report.path)
    while let name = enumerator?.nextObject() as? String {
      let data = try? Data(contentsOf: report.appendingPathComponent(name))
      if data.map(Array.init) == before { found = true }
    }
    XCTAssertTrue(found, "the report holds the stored reference's PNG as the card's before")
  }
}

/// Results set by concurrent work, read after it.
private final class ResultBox: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [ExitStatus?] = [nil, nil]

  func set(_ index: Int, _ status: ExitStatus?) {
    lock.lock()
    slots[index] = status
    lock.unlock()
  }

  var values: [ExitStatus?] {
    lock.lock()
    defer { lock.unlock() }
    return slots
  }
}
