import Foundation
import MergeTestSupport
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import ReferenceStore
import XCTest

/// `merge-refs --compact`: what lands is written in the smallest lossless form, the pixels
/// unchanged, and a rerun leaves the compact files alone.
final class CompactLandingTests: XCTestCase {
  func testCompact_landsSmallerFilesWithTheSamePixels_andARerunKeepsThem() throws {
    let merge = try MergeScenario(self)
    merge.options.compact = true
    try merge.archive("a.zip", ["chart": .seed(1), "line": .seed(2)])
    let verdict = merge.run()
    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    let compacted = try XCTUnwrap(verdict.conclusion.summary.compacted)
    XCTAssertEqual(compacted.files, 2)
    XCTAssertEqual(compacted.compacted, 2)
    XCTAssertLessThan(compacted.bytesAfter, compacted.bytesBefore)
    XCTAssertTrue(
      verdict.conclusion.summary.text().contains(
        "compacted 2 of 2 landed references: \(compacted.bytesBefore) → \(compacted.bytesAfter) bytes"
      ))
    for (name, seed) in [("chart", 1), ("line", 2)] {
      let bytes = try XCTUnwrap(merge.bytes(name))
      XCTAssertEqual(try PNGDecoder().decode(bytes), try Pixels.seed(seed).image())
      XCTAssertEqual(bytes, try Pixels.seed(seed).png(setting: .compact))
    }
    let landed = try merge.package()
    let rerun = merge.run()
    XCTAssertEqual(rerun.outcomes, ["chart": .unchanged, "line": .unchanged])
    assertTreesEqual(try merge.package(), landed)
    XCTAssertNil(rerun.conclusion.summary.compacted, "nothing landed, nothing compacted")
    XCTAssertFalse(rerun.conclusion.summary.text().contains("compacted"))
  }

  func testWithoutCompact_landsTheArchivedBytes() throws {
    let merge = try MergeScenario(self)
    try merge.archive("a.zip", ["chart": .seed(1)])
    let verdict = merge.run()
    XCTAssertNil(verdict.conclusion.summary.compacted)
    XCTAssertEqual(merge.bytes("chart"), try Pixels.seed(1).png())
  }

  func testCompact_intoAStore_uploadsTheCompactForm() throws {
    let merge = try MergeScenario(self)
    let store = FolderStore(folder: merge.root.appendingPathComponent("store"))
    try Data(#"{"version": 1, "store": "folder", "folder": "../store"}"#.utf8).write(
      to: merge.destination.appendingPathComponent(StoreConfiguration.fileName))
    merge.options.compact = true
    try merge.archive("a.zip", ["chart": .seed(1)])
    XCTAssertEqual(merge.run().status, .success)
    XCTAssertEqual(
      try store.list(), [ObjectKey(of: try Pixels.seed(1).png(setting: .compact))])
  }
}
