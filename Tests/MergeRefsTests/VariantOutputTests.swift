import Foundation
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// What merge-refs prints of variants (`VariantMergeTests` has the merge's verdict): the text
/// summary's redundant files and prune command, the counts per variant in the text, the
/// Markdown summary and `--json`, and GitHub annotations.
final class VariantOutputTests: XCTestCase {
  private var merge: MergeScenario!

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: VariantReviewFixture.folder)
    try merge.declareVariants()
  }

  /// A package whose macOS file of `a` now renders what the base holds: redundant.
  private func redundantMacFile() throws {
    try merge.reference("a", .seed(1))
    try merge.reference(variantName("a", "macos"), .seed(5))
    try merge.archive("mac.zip", [variantName("a", "macos"): .seed(1)])
  }

  func testMerge_textSummary_namesRedundantVariantsAndThePruneCommand() throws {
    try redundantMacFile()

    let result = try MergeRefs.run(merge.arguments)

    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(result.output.contains("redundant variants ("), result.output)
    XCTAssertTrue(result.output.contains("to delete the redundant variants: "), result.output)
    XCTAssertTrue(result.output.contains(", 1 redundant"), result.output)
  }

  /// --prune deletes a redundant variant file: the summary counts it as a pruned redundant
  /// file, not as a pruned orphan.
  func testMerge_pruneOfARedundantFile_isCountedWithTheRedundant() throws {
    try redundantMacFile()

    let result = try MergeRefs.run(["--prune"] + merge.arguments)

    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertFalse(merge.exists(variantName("a", "macos")))
    XCTAssertTrue(result.output.contains(", 0 orphans, 0 refused"), result.output)
    XCTAssertTrue(result.output.contains(", 1 redundant (1 pruned)"), result.output)
  }

  func testSummary_namesEachChangesVariant_andCountsPerVariant() throws {
    try merge.changesOfThreeVariants()
    let markdown = merge.root.appendingPathComponent("summary.md")

    let text = try MergeRefs.run(
      ["--dry-run", "--summary-markdown", markdown.path] + merge.arguments)
    let json = try MergeRefs.run(["--dry-run", "--json"] + merge.arguments)

    XCTAssertEqual(json.exitStatus, .success, json.all)
    let summary = try decodedSummary(json.output)
    XCTAssertEqual(summary.variants?.map(\.variant), ["base", "linux-arm64", "macos"])
    XCTAssertEqual(summary.variants?.map(\.added), [2, 1, 0])
    XCTAssertEqual(summary.variants?.map(\.matchingFallback), [0, 1, 0])
    XCTAssertEqual(summary.variants?.map(\.redundant), [0, 0, 1])
    let variantOf = Dictionary(uniqueKeysWithValues: summary.changes.map { ($0.path, $0.variant) })
    XCTAssertEqual(variantOf[merge.path(variantName("a", "linux-arm64"))], "linux-arm64")
    XCTAssertEqual(variantOf[merge.path(variantName("c", "macos"))], "macos")
    XCTAssertEqual(variantOf[merge.path("a")], .some(nil), "a base path names no variant")
    XCTAssertEqual(text.exitStatus, .success, text.all)
    XCTAssertTrue(
      text.output.contains(
        "by variant: base 2 added; linux-arm64 1 added, 1 equal to the fallback; "
          + "macos 1 redundant"),
      text.output)
    let table = try String(contentsOf: markdown, encoding: .utf8)
    XCTAssertTrue(table.contains("| linux-arm64 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 1 |"), table)
    XCTAssertTrue(table.contains("| macos | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 0 |"), table)
  }

  func testAnnotations_conflictOfAVariantFile_nameTheVariant() throws {
    try merge.archive("arm-1.zip", [variantName("a", "linux-arm64"): .seed(2)])
    try merge.archive("arm-2.zip", [variantName("a", "linux-arm64"): .seed(3)])

    let result = try MergeRefs.run(["--github-annotations"] + merge.arguments)

    XCTAssertEqual(result.exitStatus, .conflicts, result.all)
    XCTAssertTrue(
      result.output.contains(
        "::error::conflict (variant linux-arm64): sources disagree about "
          + merge.path(variantName("a", "linux-arm64"))),
      result.output)
    XCTAssertFalse(merge.exists(variantName("a", "linux-arm64")))
  }

  func testSummary_noDeclaration_hasNoVariantCounts() throws {
    try FileManager.default.removeItem(
      at: merge.destination.appendingPathComponent(ReferenceVariants.fileName))
    try merge.archive("run.zip", ["a": .seed(1)])

    let json = try MergeRefs.run(["--json"] + merge.arguments)
    let text = try MergeRefs.run(["--dry-run"] + merge.arguments)

    let summary = try decodedSummary(json.output)
    XCTAssertNil(summary.variants)
    XCTAssertFalse(json.output.contains("\"variants\""), json.output)
    XCTAssertFalse(text.output.contains("by variant"), text.output)
  }
}
