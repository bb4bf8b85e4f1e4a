import Foundation
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// Variant files land only where a variant renders differently from what the rest of its chain
/// gives, decided with every render of the merge in hand; a file that is no longer needed is
/// proposed as redundant and deleted only with `--prune`. Short names such as `a@@macos` are
/// the variant files of `a` (`VariantPath`).
final class VariantMergeTests: XCTestCase {
  private var merge: MergeScenario!

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: VariantReviewFixture.folder)
    try merge.declareVariants()
  }

  /// `seed`'s image with one channel of one pixel off by `step`: within a tolerance of
  /// `step`, not equal.
  private func near(_ seed: Int, by step: UInt8) throws -> Pixels {
    let image = try noiseImage(seed: seed)
    var pixels = image.pixels
    pixels[0] = pixels[0] >= 255 - step ? pixels[0] - step : pixels[0] + step
    return .image(try RGBAImage(width: image.width, height: image.height, pixels: pixels))
  }

  func testMerge_variantRendersWhatTheBaseHolds_writesNoVariantFile() throws {
    try merge.archive("base.zip", ["a": .seed(1), "b": .seed(1)])
    try merge.archive(
      "arm.zip",
      [variantName("a", "linux-arm64"): .seed(1), variantName("b", "linux-arm64"): .seed(2)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(
      verdict.outcomes, ["a": .added, "b": .added, variantName("b", "linux-arm64"): .added])
    XCTAssertEqual(verdict.plan.matchingFallback, [merge.path(variantName("a", "linux-arm64"))])
    XCTAssertTrue(merge.exists("a"))
    XCTAssertFalse(merge.exists(variantName("a", "linux-arm64")), "equal to the base: no file")
    XCTAssertTrue(merge.exists(variantName("b", "linux-arm64")), "different: the file lands")
  }

  func testMerge_baseChangesInTheSameMerge_variantIsComparedWithTheNewBase() throws {
    try merge.reference("a", .seed(1))
    try merge.archive("base.zip", ["a": .seed(3)])
    try merge.archive("arm.zip", [variantName("a", "linux-arm64"): .seed(3)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["a": .updated])
    XCTAssertEqual(merge.bytes("a"), try Pixels.seed(3).png())
    XCTAssertFalse(
      merge.exists(variantName("a", "linux-arm64")), "the new base already holds its pixels")
  }

  func testMerge_renderWithinItsTestsTolerance_needsNoFile_anExactTestsDoes() throws {
    try merge.reference("a", .seed(1))
    try merge.reference("b", .seed(1))
    let near = try near(1, by: 1)
    try merge.archive(
      "mac.zip", [variantName("a", "macos"): near, variantName("b", "macos"): near]
    ) {
      $0.comparisons[self.merge.path(variantName("a", "macos"))] = ComparisonRecord(
        .tolerance(2), bound: .none)
      $0.comparisons[self.merge.path(variantName("b", "macos"))] = ComparisonRecord(
        .exact, bound: .none)
    }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, [variantName("b", "macos"): .added])
    XCTAssertEqual(verdict.plan.matchingFallback, [merge.path(variantName("a", "macos"))])
    XCTAssertFalse(
      merge.exists(variantName("a", "macos")), "its tolerance finds it equal to the base")
    XCTAssertTrue(merge.exists(variantName("b", "macos")), "an exact test needs equal pixels")
  }

  /// The base run recorded its image unchanged (no entry to read): the fallback's pixels are
  /// the package's file, and the variant's render is judged by its test's comparison as it
  /// is when the arm archive is merged alone.
  func testMerge_baseRecordedUnchanged_renderWithinItsTolerance_needsNoFile() throws {
    let reference = try merge.reference("a", .seed(1))
    let baseRun = try merge.archive("base.zip") {
      $0.addUnchanged(self.merge.path("a"), try noiseImage(seed: 1), reference: reference)
    }
    let armRun = try merge.archive("arm.zip", [variantName("a", "linux-arm64"): try near(1, by: 2)])
    {
      $0.comparisons[self.merge.path(variantName("a", "linux-arm64"))] = ComparisonRecord(
        .tolerance(3), bound: .none)
    }
    merge.options.prune = true

    for sources in [[armRun], [baseRun, armRun]] {
      merge.sources = sources
      let verdict = merge.run()

      let names = "\(sources.map(\.lastPathComponent))"
      XCTAssertEqual(verdict.status, .success, names)
      XCTAssertFalse(
        merge.exists(variantName("a", "linux-arm64")), "within tolerance(3) of the base")
      XCTAssertEqual(
        verdict.plan.matchingFallback, [merge.path(variantName("a", "linux-arm64"))], names)
      XCTAssertEqual(verdict.names(.added), [], names)
    }
  }

  /// A variant's run that finds its own files holding its renders records them unchanged, as
  /// the base's run does its own (the article's recipe): the file whose test's tolerance finds
  /// it equal to the base is redundant, judged with the comparison its unchanged record
  /// carries, and the exact test's is still needed; both merged alone and with the base's run.
  func testMerge_variantRecordedUnchanged_withinItsTolerance_isRedundant() throws {
    let near = try near(1, by: 2)
    let comparisons = [
      "a": ComparisonRecord(.tolerance(3), bound: .none), "b": .init(.exact, bound: .none),
    ]
    var references: [String: (base: [UInt8], near: [UInt8])] = [:]
    for name in comparisons.keys {
      references[name] = (
        try merge.reference(name, .seed(1)),
        try merge.reference(variantName(name, "linux-arm64"), near)
      )
    }
    let baseRun = try merge.archive("base.zip") { run in
      for (name, comparison) in comparisons {
        run.addUnchanged(
          self.merge.path(name), try noiseImage(seed: 1), reference: references[name]!.base,
          comparison: comparison)
      }
    }
    let armRun = try merge.archive("arm.zip") { run in
      for (name, comparison) in comparisons {
        run.addUnchanged(
          self.merge.path(variantName(name, "linux-arm64")), try near.image(),
          reference: references[name]!.near, comparison: comparison)
      }
    }

    for sources in [[armRun], [baseRun, armRun]] {
      merge.sources = sources
      let verdict = merge.plan()

      let names = "\(sources.map(\.lastPathComponent))"
      XCTAssertEqual(verdict.status, .success, names)
      XCTAssertEqual(verdict.names(.redundant), [variantName("a", "linux-arm64")], names)
    }
    merge.options.prune = true
    XCTAssertEqual(merge.run().status, .success)
    XCTAssertFalse(merge.exists(variantName("a", "linux-arm64")), "pruned")
    XCTAssertTrue(merge.exists(variantName("b", "linux-arm64")), "an exact test needs its file")
  }

  func testMerge_fallbackChain_usesTheNearestFallbackThatExists() throws {
    try merge.reference("a", .seed(1))
    try merge.reference(variantName("a", "linux"), .seed(4))
    try merge.archive("arm.zip", [variantName("a", "linux-arm64"): .seed(4)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.plan.matchingFallback, [merge.path(variantName("a", "linux-arm64"))])
    XCTAssertFalse(
      merge.exists(variantName("a", "linux-arm64")), "linux's file gives these pixels already")
  }

  func testMerge_variantFileNowMatchesItsFallback_isRedundantAndDeletedOnlyWithPrune() throws {
    try merge.reference("a", .seed(1))
    try merge.reference(variantName("a", "macos"), .seed(5))
    try merge.archive("mac.zip", [variantName("a", "macos"): .seed(1)])

    let kept = merge.run()

    XCTAssertEqual(kept.status, .success, "\(kept.problems)")
    XCTAssertEqual(kept.outcomes, [variantName("a", "macos"): .redundant])
    XCTAssertTrue(merge.exists(variantName("a", "macos")), "never deleted without --prune")

    merge.options.prune = true
    let pruned = merge.run()

    XCTAssertEqual(pruned.status, .success, "\(pruned.problems)")
    XCTAssertEqual(pruned.outcomes, [variantName("a", "macos"): .redundant])
    XCTAssertEqual(pruned.summary.pruned, 1)
    XCTAssertFalse(merge.exists(variantName("a", "macos")))
    XCTAssertTrue(merge.exists("a"))
  }

  func testMerge_baseRunsOnly_neverCallOtherVariantsFilesOrphans() throws {
    try merge.reference(variantName("a", "macos"), .seed(6))
    try merge.archive("all.zip", ["a": .seed(1)]) {
      $0.coverage = .init(scope: .wholeBundle, arguments: [])
    }
    merge.options.prune = true

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["a": .added])
    XCTAssertTrue(
      merge.exists(variantName("a", "macos")), "a base run proves nothing about macOS's files")
  }

  func testMerge_noDeclaration_variantLikeNamesAreOrdinaryPaths() throws {
    try FileManager.default.removeItem(
      at: merge.destination.appendingPathComponent(ReferenceVariants.fileName))
    try merge.archive("run.zip", ["a": .seed(1), variantName("a", "macos"): .seed(1)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(
      verdict.outcomes, ["a": .added, variantName("a", "macos"): .added],
      "without variants, every path is its own")
    XCTAssertNil(verdict.plan.variants)
    XCTAssertNil(verdict.summary.variants, "no counts per variant")
  }

  func testMerge_invalidDeclaration_refusesTheMergeNamingTheFile() throws {
    try merge.declareVariants(
      #"{"schemaVersion": 1, "base": "linux-x86_64", "variants": {"a": ["b"]}}"#)
    try merge.archive("run.zip", ["a": .seed(1)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput, "\(verdict.problems)")
    XCTAssertEqual(verdict.problems, ["invalidVariants"])
    guard case .invalidVariants(let error) = verdict.conclusion.problems.first else {
      return XCTFail("\(verdict.conclusion.problems)")
    }
    XCTAssertEqual(
      error,
      .invalidDeclaration(
        path: merge.destination.appendingPathComponent(ReferenceVariants.fileName).path,
        reason: #"variant "a" falls back to "b", which is not declared"#))
    XCTAssertFalse(merge.exists("a"))
  }

  /// A verify run on a platform the declaration does not name keeps its failed render under
  /// the base's name: the landing command it used to print must not write the base with it.
  func testMerge_archiveOfAnUndeclaredPlatform_isRefusedByNameAndNothingLands() throws {
    try merge.reference("a", .seed(1))
    let laptop = try merge.archive("laptop.zip", ["a": .seed(2)]) {
      $0.mode = "verify"
      $0.variants = ["freebsd-riscv64 (undeclared)"]
    }
    merge.options.include = IncludeFilter(patterns: [merge.path("a")])
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput, "\(verdict.problems)")
    XCTAssertEqual(
      verdict.conclusion.problems,
      [
        .undeclaredPlatform(
          source: laptop.path, platform: "freebsd-riscv64", basePlatform: "linux-x86_64")
      ])
    assertTreesEqual(try merge.package(), before)
  }

  /// An undeclared platform's run that only verified (a shard's manifest, say) holds no render,
  /// so nothing of it can land and it blocks nothing; its uses still count as any later run's
  /// do: an earlier base run's render of a reference it verified is superseded, not landed.
  func testMerge_undeclaredPlatformArchiveWithoutImages_blocksNothingAndItsUsesCount() throws {
    let reference = try merge.reference("a", .seed(1))
    try merge.archive("base.zip", ["a": .seed(2), "b": .seed(3)], host: "laptop") {
      $0.run = "base"
      $0.variants = ["base"]
    }
    try merge.archive("verified.zip", host: "laptop", generatedAt: day(2)) {
      $0.run = "verify"
      $0.mode = "verify"
      $0.variants = ["freebsd-riscv64 (undeclared)"]
      $0.verifiedReferences = [self.merge.path("a")]
    }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.problems, [])
    XCTAssertTrue(merge.exists("b"), "the base run's other render lands")
    XCTAssertEqual(
      merge.bytes("a"), reference, "verified later: the earlier render never lands")
    XCTAssertEqual(verdict.superseded, ["a"])
  }

  func testMerge_archiveOfDeclaredVariants_isNotRefused() throws {
    try merge.archive("mac.zip", [variantName("a", "macos"): .seed(2)]) {
      $0.variants = ["base", "macos"]
    }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertTrue(merge.exists(variantName("a", "macos")))
  }

  func testSummary_namesEachChangesVariant_andCountsPerVariant() throws {
    try merge.changesOfThreeVariants()

    let verdict = merge.plan()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    let summary = verdict.summary
    XCTAssertEqual(summary.variants?.map(\.variant), ["base", "linux-arm64", "macos"])
    XCTAssertEqual(summary.variants?.map(\.added), [2, 1, 0])
    XCTAssertEqual(summary.variants?.map(\.matchingFallback), [0, 1, 0])
    XCTAssertEqual(summary.variants?.map(\.redundant), [0, 0, 1])
    let variantOf = Dictionary(
      uniqueKeysWithValues: verdict.plan.items.map {
        (merge.name(of: $0.path), verdict.plan.variant(of: $0.path))
      })
    XCTAssertEqual(variantOf[variantName("a", "linux-arm64")], "linux-arm64")
    XCTAssertEqual(variantOf[variantName("c", "macos")], "macos")
    XCTAssertEqual(variantOf["a"], .some(nil), "a base path names no variant")
  }
}
