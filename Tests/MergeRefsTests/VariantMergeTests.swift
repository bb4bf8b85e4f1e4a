import Foundation
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// Variant files land only where a variant renders differently from what the rest of its chain
/// gives, decided with every render of the merge in hand; a file that is no longer needed is
/// proposed as redundant and deleted only with `--prune`.
final class VariantMergeTests: XCTestCase {
  private var root: URL!
  private var destination: URL!
  private let folder = "Tests/ChartTests/__References__/ChartTests"

  override func setUpWithError() throws {
    root = try makeTemporaryFolder(self)
    destination = root.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    try Data(
      """
      {"schemaVersion": 1, "base": "linux-x86_64",
       "variants": {"linux-arm64": ["linux"], "linux": [], "macos": []}}
      """.utf8
    ).write(to: destination.appendingPathComponent(ReferenceVariants.fileName))
  }

  private func path(_ name: String, _ variant: String? = nil) -> String {
    VariantPath.path(of: "\(folder)/\(name).png", variant: variant)
  }

  private func archive(_ name: String, _ images: [(String, RGBAImage)]) throws -> URL {
    var builder = ArchiveBuilder(generatedAt: day(1))
    for (path, image) in images { try builder.add(path, image) }
    let url = root.appendingPathComponent(name)
    try builder.write(to: url)
    return url
  }

  private func place(_ image: RGBAImage, at path: String) throws {
    try writeFile(
      try PNGEncoder().encode(image), to: destination.appendingPathComponent(path))
  }

  private func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: destination.appendingPathComponent(path).path)
  }

  private func merge(_ sources: [URL], prune: Bool = false) throws -> ProgramResult {
    try MergeRefs.run(
      (prune ? ["--prune"] : []) + ["--json"] + sources.map(\.path) + [destination.path])
  }

  func testMerge_variantRendersWhatTheBaseHolds_writesNoVariantFile() throws {
    let base = try noiseImage(seed: 1)
    let other = try noiseImage(seed: 2)
    let sources = [
      try archive("base.zip", [(path("a"), base), (path("b"), base)]),
      try archive(
        "arm.zip", [(path("a", "linux-arm64"), base), (path("b", "linux-arm64"), other)]),
    ]

    let result = try merge(sources)

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(exists(path("a")))
    XCTAssertFalse(exists(path("a", "linux-arm64")), "equal to the base: no variant file")
    XCTAssertTrue(exists(path("b", "linux-arm64")), "different: the variant file lands")
  }

  func testMerge_baseChangesInTheSameMerge_variantIsComparedWithTheNewBase() throws {
    let old = try noiseImage(seed: 1)
    let new = try noiseImage(seed: 3)
    try place(old, at: path("a"))
    let sources = [
      try archive("base.zip", [(path("a"), new)]),
      try archive("arm.zip", [(path("a", "linux-arm64"), new)]),
    ]

    let result = try merge(sources)

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(
      try Data(contentsOf: destination.appendingPathComponent(path("a"))),
      Data(try PNGEncoder().encode(new)))
    XCTAssertFalse(exists(path("a", "linux-arm64")), "the new base already holds its pixels")
  }

  func testMerge_renderWithinItsTestsTolerance_needsNoFile_anExactTestsDoes() throws {
    let base = try noiseImage(seed: 1)
    try place(base, at: path("a"))
    try place(base, at: path("b"))
    // One channel of one pixel off by one: within a tolerance of 2, not equal.
    var pixels = base.pixels
    pixels[0] = pixels[0] == 255 ? 254 : pixels[0] + 1
    let near = try RGBAImage(width: base.width, height: base.height, pixels: pixels)
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add(path("a", "macos"), near)
    try builder.add(path("b", "macos"), near)
    builder.comparisons[path("a", "macos")] = ComparisonRecord(.tolerance(2), bound: .none)
    builder.comparisons[path("b", "macos")] = ComparisonRecord(.exact, bound: .none)
    let url = root.appendingPathComponent("mac.zip")
    try builder.write(to: url)

    let result = try merge([url])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertFalse(exists(path("a", "macos")), "its test's tolerance finds it equal to the base")
    XCTAssertTrue(exists(path("b", "macos")), "an exact test needs equal pixels")
    let summary = try decodedSummary(result.output)
    XCTAssertEqual(summary.matchingFallback, 1)
  }

  /// The base run recorded its image unchanged (no entry to read): the fallback's pixels are
  /// the destination's file, and the variant's render is judged by its test's comparison as it
  /// is when the arm archive is merged alone.
  func testMerge_baseRecordedUnchanged_renderWithinItsTolerance_needsNoFile() throws {
    let base = try noiseImage(seed: 1)
    let reference = try PNGEncoder().encode(base)
    try writeFile(reference, to: destination.appendingPathComponent(path("a")))
    var baseRun = ArchiveBuilder(generatedAt: day(1))
    baseRun.addUnchanged(path("a"), base, reference: reference)
    let baseURL = root.appendingPathComponent("base.zip")
    try baseRun.write(to: baseURL)
    var pixels = base.pixels
    pixels[0] = pixels[0] >= 254 ? pixels[0] - 2 : pixels[0] + 2
    var armRun = ArchiveBuilder(generatedAt: day(1))
    try armRun.add(
      path("a", "linux-arm64"),
      try RGBAImage(width: base.width, height: base.height, pixels: pixels))
    armRun.comparisons[path("a", "linux-arm64")] = ComparisonRecord(.tolerance(3), bound: .none)
    let armURL = root.appendingPathComponent("arm.zip")
    try armRun.write(to: armURL)

    for sources in [[armURL], [baseURL, armURL]] {
      let result = try merge(sources, prune: true)

      XCTAssertEqual(result.status, 0, result.all)
      XCTAssertFalse(exists(path("a", "linux-arm64")), "within tolerance(3) of the base")
      let summary = try decodedSummary(result.output)
      XCTAssertEqual(summary.matchingFallback, 1, "\(sources.map(\.lastPathComponent))")
      XCTAssertEqual(summary.added, 0)
    }
  }

  /// A variant's run that finds its own files holding its renders records them unchanged, as
  /// the base's run does its own (the article's recipe): the file whose test's tolerance finds
  /// it equal to the base is redundant, judged with the comparison its unchanged record
  /// carries, and the exact test's is still needed; both merged alone and with the base's run.
  func testMerge_variantRecordedUnchanged_withinItsTolerance_isRedundant() throws {
    let base = try noiseImage(seed: 1)
    let basePNG = try PNGEncoder().encode(base)
    var pixels = base.pixels
    pixels[0] = pixels[0] >= 254 ? pixels[0] - 2 : pixels[0] + 2
    let near = try RGBAImage(width: base.width, height: base.height, pixels: pixels)
    let nearPNG = try PNGEncoder().encode(near)
    var baseRun = ArchiveBuilder(generatedAt: day(1))
    var armRun = ArchiveBuilder(generatedAt: day(1))
    for (name, comparison) in [
      ("a", ComparisonRecord(.tolerance(3), bound: .none)), ("b", .init(.exact, bound: .none)),
    ] {
      try writeFile(basePNG, to: destination.appendingPathComponent(path(name)))
      try writeFile(nearPNG, to: destination.appendingPathComponent(path(name, "linux-arm64")))
      baseRun.addUnchanged(path(name), base, reference: basePNG, comparison: comparison)
      armRun.addUnchanged(
        path(name, "linux-arm64"), near, reference: nearPNG, comparison: comparison)
    }
    let baseURL = root.appendingPathComponent("base.zip")
    try baseRun.write(to: baseURL)
    let armURL = root.appendingPathComponent("arm.zip")
    try armRun.write(to: armURL)

    for sources in [[armURL], [baseURL, armURL]] {
      let result = try merge(sources)

      XCTAssertEqual(result.status, 0, result.all)
      let summary = try decodedSummary(result.output)
      let names = "\(sources.map(\.lastPathComponent))"
      XCTAssertEqual(summary.redundant, 1, names)
      XCTAssertEqual(
        summary.changes.filter { $0.outcome == .redundant }.map(\.path),
        [path("a", "linux-arm64")], names)
    }
    XCTAssertEqual(try merge([baseURL, armURL], prune: true).status, 0)
    XCTAssertFalse(exists(path("a", "linux-arm64")), "pruned")
    XCTAssertTrue(exists(path("b", "linux-arm64")), "an exact test needs its file")
  }

  func testMerge_fallbackChain_usesTheNearestFallbackThatExists() throws {
    let base = try noiseImage(seed: 1)
    let linux = try noiseImage(seed: 4)
    try place(base, at: path("a"))
    try place(linux, at: path("a", "linux"))
    let source = try archive("arm.zip", [(path("a", "linux-arm64"), linux)])

    let result = try merge([source])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertFalse(exists(path("a", "linux-arm64")), "linux's file gives these pixels already")
  }

  func testMerge_variantFileNowMatchesItsFallback_isRedundantAndDeletedOnlyWithPrune() throws {
    let base = try noiseImage(seed: 1)
    try place(base, at: path("a"))
    try place(try noiseImage(seed: 5), at: path("a", "macos"))
    let source = try archive("mac.zip", [(path("a", "macos"), base)])

    let kept = try merge([source])

    XCTAssertEqual(kept.status, 0, kept.all)
    XCTAssertTrue(exists(path("a", "macos")), "never deleted without --prune")
    let summary = try decodedSummary(kept.output)
    XCTAssertEqual(summary.redundant, 1)
    XCTAssertEqual(summary.changes.map(\.outcome), [.redundant])

    let pruned = try merge([source], prune: true)

    XCTAssertEqual(pruned.status, 0, pruned.all)
    XCTAssertFalse(exists(path("a", "macos")))
    XCTAssertTrue(exists(path("a")))
  }

  func testMerge_textSummary_namesRedundantVariantsAndThePruneCommand() throws {
    let base = try noiseImage(seed: 1)
    try place(base, at: path("a"))
    try place(try noiseImage(seed: 5), at: path("a", "macos"))
    let source = try archive("mac.zip", [(path("a", "macos"), base)])

    let result = try MergeRefs.run([source.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(result.output.contains("redundant variants ("), result.output)
    XCTAssertTrue(result.output.contains("to delete the redundant variants: "), result.output)
    XCTAssertTrue(result.output.contains(", 1 redundant"), result.output)
  }

  /// --prune deletes a redundant variant file: the summary counts it as a pruned redundant
  /// file, not as a pruned orphan.
  func testMerge_pruneOfARedundantFile_isCountedWithTheRedundant() throws {
    let base = try noiseImage(seed: 1)
    try place(base, at: path("a"))
    try place(try noiseImage(seed: 5), at: path("a", "macos"))
    let source = try archive("mac.zip", [(path("a", "macos"), base)])

    let result = try MergeRefs.run(["--prune", source.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertFalse(exists(path("a", "macos")))
    XCTAssertTrue(result.output.contains(", 0 orphans, 0 refused"), result.output)
    XCTAssertTrue(result.output.contains(", 1 redundant (1 pruned)"), result.output)
  }

  func testMerge_baseRunsOnly_neverCallOtherVariantsFilesOrphans() throws {
    let base = try noiseImage(seed: 1)
    try place(try noiseImage(seed: 6), at: path("a", "macos"))
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add(path("a"), base)
    builder.coverage = .init(scope: .wholeBundle, arguments: [])
    let url = root.appendingPathComponent("all.zip")
    try builder.write(to: url)

    let result = try merge([url], prune: true)

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(exists(path("a", "macos")), "a base run proves nothing about macOS's files")
  }

  func testReport_newVariantFile_isShownBesideItsFallback() throws {
    let base = try noiseImage(seed: 1)
    try place(base, at: path("a"))
    let source = try archive("arm.zip", [(path("a", "linux-arm64"), try noiseImage(seed: 2))])
    let report = root.appendingPathComponent("review")

    let result = try MergeRefs.run(
      ["--dry-run", "--report", report.path, source.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    let card = try XCTUnwrap(ReviewDataScript.cards(inReport: report).first)
    XCTAssertEqual(card["path"] as? String, path("a", "linux-arm64"))
    XCTAssertEqual(card["outcome"] as? String, "added")
    let before = try XCTUnwrap(card["before"] as? [String: Any], "\(card)")
    let copied = report.appendingPathComponent(try XCTUnwrap(before["src"] as? String))
    XCTAssertEqual(
      try Data(contentsOf: copied),
      try Data(contentsOf: destination.appendingPathComponent(path("a"))), "the fallback's bytes")
    XCTAssertNotNil(card["difference"], "\(card)")
    XCTAssertTrue(card["beforePixels"] is NSNull, "an added path's approval binds no reference")
    let meta = (card["meta"] as? [String])?.joined(separator: " | ") ?? ""
    XCTAssertTrue(meta.contains("shown beside its fallback \(path("a"))"), meta)
  }

  func testReport_baseAndTwoVariants_cardsCarryTheirVariantAndTheFileTheyCompareWith() throws {
    let fixture = try VariantReviewFixture(root: root)
    let cards = try ReviewDataScript.cards(inReport: fixture.report)
    XCTAssertEqual(
      cards.compactMap { $0["path"] as? String }.sorted(),
      VariantReviewFixture.expected.map(\.path).sorted(), "one card per change")
    for expected in VariantReviewFixture.expected {
      let card = try XCTUnwrap(cards.first { $0["path"] as? String == expected.path })
      XCTAssertEqual(card["outcome"] as? String, expected.outcome, expected.path)
      XCTAssertEqual(card["variant"] as? String, expected.variant, expected.path)
      if expected.variant == nil { XCTAssertTrue(card["variant"] is NSNull, "\(card)") }
      let compared = try XCTUnwrap(card["comparedWith"] as? [String: Any], "\(card)")
      XCTAssertEqual(
        VariantReviewFixture.Compared(
          try XCTUnwrap(compared["path"] as? String), compared["variant"] as? String,
          fallback: try XCTUnwrap(compared["fallback"] as? Bool)),
        expected.compared, expected.path)
      // "before" is the file it compares with, as the package holds it.
      let before = try XCTUnwrap(card["before"] as? [String: Any], "\(card)")
      XCTAssertEqual(
        try Data(
          contentsOf: fixture.report.appendingPathComponent(
            try XCTUnwrap(before["src"] as? String))),
        try Data(contentsOf: destination.appendingPathComponent(expected.compared.path)),
        expected.path)
    }
    // An update of a variant file also shows its fallback, as the package holds it.
    let updatedVariant = try XCTUnwrap(
      cards.first { $0["path"] as? String == VariantReviewFixture.path("b", "linux") })
    let fallback = try XCTUnwrap(updatedVariant["fallback"] as? [String: Any], "\(updatedVariant)")
    XCTAssertEqual(fallback["path"] as? String, VariantReviewFixture.path("b"))
    XCTAssertTrue(fallback["variant"] is NSNull, "the base")
    let image = try XCTUnwrap(fallback["image"] as? [String: Any])
    XCTAssertEqual(
      try Data(
        contentsOf: fixture.report.appendingPathComponent(
          try XCTUnwrap(image["src"] as? String))),
      try Data(contentsOf: destination.appendingPathComponent(VariantReviewFixture.path("b"))))
    for card in cards where card["path"] as? String != VariantReviewFixture.path("b", "linux") {
      XCTAssertTrue(card["fallback"] is NSNull, "\(card)")
    }
  }

  func testReport_noDeclaration_cardsHaveNoVariant() throws {
    try FileManager.default.removeItem(
      at: destination.appendingPathComponent(ReferenceVariants.fileName))
    try place(try noiseImage(seed: 1), at: path("a"))
    let source = try archive(
      "run.zip",
      [(path("a"), try noiseImage(seed: 2)), (path("a", "linux"), try noiseImage(seed: 3))])
    let report = root.appendingPathComponent("review")

    let result = try MergeRefs.run(
      ["--dry-run", "--report", report.path, source.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    let cards = try ReviewDataScript.cards(inReport: report)
    XCTAssertEqual(cards.count, 2)
    for card in cards { XCTAssertTrue(card["variant"] is NSNull, "\(card)") }
    let updated = try XCTUnwrap(cards.first { $0["path"] as? String == path("a") })
    XCTAssertEqual(
      (updated["comparedWith"] as? [String: Any])?["path"] as? String, path("a"),
      "an update compares with its own file")
    let added = try XCTUnwrap(cards.first { $0["path"] as? String == path("a", "linux") })
    XCTAssertTrue(added["comparedWith"] is NSNull, "an added file compares with nothing")
  }

  func testMerge_noDeclaration_variantLikeNamesAreOrdinaryPaths() throws {
    try FileManager.default.removeItem(
      at: destination.appendingPathComponent(ReferenceVariants.fileName))
    let base = try noiseImage(seed: 1)
    let source = try archive(
      "run.zip", [(path("a"), base), (path("a", "macos"), base)])

    let result = try merge([source])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(exists(path("a", "macos")), "without variants, every path is its own")
  }

  func testMerge_invalidDeclaration_refusesTheMergeNamingTheFile() throws {
    try Data(#"{"schemaVersion": 1, "base": "linux-x86_64", "variants": {"a": ["b"]}}"#.utf8)
      .write(to: destination.appendingPathComponent(ReferenceVariants.fileName))
    let source = try archive("run.zip", [(path("a"), try noiseImage(seed: 1))])

    let result = try MergeRefs.run([source.path, destination.path])

    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertTrue(
      result.all.contains("ReferenceVariants.json is not a valid variant declaration"), result.all)
    XCTAssertTrue(result.all.contains(#"falls back to "b", which is not declared"#), result.all)
    XCTAssertFalse(exists(path("a")))
  }

  /// A verify run on a platform the declaration does not name keeps its failed render under
  /// the base's name: the landing command it used to print must not write the base with it.
  func testMerge_archiveOfAnUndeclaredPlatform_isRefusedByNameAndNothingLands() throws {
    let base = try noiseImage(seed: 1)
    try place(base, at: path("a"))
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add(path("a"), try noiseImage(seed: 2))
    builder.mode = "verify"
    builder.variants = ["freebsd-riscv64 (undeclared)"]
    let url = root.appendingPathComponent("laptop.zip")
    try builder.write(to: url)
    let before = try snapshot(destination)

    let result = try MergeRefs.run(["--include", path("a"), url.path, destination.path])

    XCTAssertEqual(result.status, ExitStatus.refusedInput.rawValue, result.all)
    XCTAssertTrue(result.all.contains("\(url.path) holds renders of freebsd-riscv64 (undeclared)"))
    XCTAssertTrue(result.all.contains("(the base is linux-x86_64)"), result.all)
    XCTAssertTrue(result.all.contains("declare freebsd-riscv64 in ReferenceVariants.json"))
    assertTreesEqual(try snapshot(destination), before)
  }

  /// An undeclared platform's run that only verified (a shard's manifest, say) holds no render,
  /// so nothing of it can land and it blocks nothing; its uses still count as any later run's
  /// do: an earlier base run's render of a reference it verified is superseded, not landed.
  func testMerge_undeclaredPlatformArchiveWithoutImages_blocksNothingAndItsUsesCount() throws {
    let reference = try noiseImage(seed: 1)
    try place(reference, at: path("a"))
    var baseRun = ArchiveBuilder(host: "laptop", generatedAt: day(1))
    baseRun.run = "base"
    baseRun.variants = ["base"]
    try baseRun.add(path("a"), try noiseImage(seed: 2))
    try baseRun.add(path("b"), try noiseImage(seed: 3))
    let baseURL = root.appendingPathComponent("base.zip")
    try baseRun.write(to: baseURL)
    var verified = ArchiveBuilder(host: "laptop", generatedAt: day(2))
    verified.run = "verify"
    verified.mode = "verify"
    verified.variants = ["freebsd-riscv64 (undeclared)"]
    verified.verifiedReferences = [path("a")]
    let verifiedURL = root.appendingPathComponent("verified.zip")
    try verified.write(to: verifiedURL)

    let result = try merge([baseURL, verifiedURL])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(exists(path("b")), "the base run's other render lands")
    XCTAssertEqual(
      try Data(contentsOf: destination.appendingPathComponent(path("a"))),
      Data(try PNGEncoder().encode(reference)), "verified later: the earlier render never lands")
    let summary = try decodedSummary(result.output)
    XCTAssertEqual(summary.superseded.map(\.path), [path("a")])
    XCTAssertEqual(summary.errors, [])
  }

  func testMerge_archiveOfDeclaredVariants_isNotRefused() throws {
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add(path("a", "macos"), try noiseImage(seed: 2))
    builder.variants = ["base", "macos"]
    let url = root.appendingPathComponent("mac.zip")
    try builder.write(to: url)

    let result = try merge([url])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(exists(path("a", "macos")))
  }

  func testSummary_namesEachChangesVariant_andCountsPerVariant() throws {
    let base = try noiseImage(seed: 1)
    try place(try noiseImage(seed: 5), at: path("c", "macos"))
    try place(base, at: path("c"))
    let sources = [
      try archive("base.zip", [(path("a"), base), (path("b"), base)]),
      try archive(
        "arm.zip",
        [(path("a", "linux-arm64"), try noiseImage(seed: 2)), (path("b", "linux-arm64"), base)]),
      try archive("mac.zip", [(path("c", "macos"), base)]),
    ]
    let markdown = root.appendingPathComponent("summary.md")

    let text = try MergeRefs.run(
      ["--dry-run", "--summary-markdown", markdown.path] + sources.map(\.path)
        + [destination.path])
    let json = try merge(sources)

    XCTAssertEqual(json.status, 0, json.all)
    let summary = try decodedSummary(json.output)
    XCTAssertEqual(summary.variants?.map(\.variant), ["base", "linux-arm64", "macos"])
    XCTAssertEqual(summary.variants?.map(\.added), [2, 1, 0])
    XCTAssertEqual(summary.variants?.map(\.matchingFallback), [0, 1, 0])
    XCTAssertEqual(summary.variants?.map(\.redundant), [0, 0, 1])
    let variantOf = Dictionary(uniqueKeysWithValues: summary.changes.map { ($0.path, $0.variant) })
    XCTAssertEqual(variantOf[path("a", "linux-arm64")], "linux-arm64")
    XCTAssertEqual(variantOf[path("c", "macos")], "macos")
    XCTAssertEqual(variantOf[path("a")], .some(nil), "a base path names no variant")
    XCTAssertEqual(text.status, 0, text.all)
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
    let sources = [
      try archive("arm-1.zip", [(path("a", "linux-arm64"), try noiseImage(seed: 2))]),
      try archive("arm-2.zip", [(path("a", "linux-arm64"), try noiseImage(seed: 3))]),
    ]

    let result = try MergeRefs.run(
      ["--github-annotations"] + sources.map(\.path) + [destination.path])

    XCTAssertNotEqual(result.status, 0, result.all)
    XCTAssertTrue(
      result.output.contains(
        "::error::conflict (variant linux-arm64): sources disagree about \(path("a", "linux-arm64"))"
      ),
      result.output)
    XCTAssertFalse(exists(path("a", "linux-arm64")))
  }

  func testSummary_noDeclaration_hasNoVariantCounts() throws {
    try FileManager.default.removeItem(
      at: destination.appendingPathComponent(ReferenceVariants.fileName))
    let source = try archive("run.zip", [(path("a"), try noiseImage(seed: 1))])

    let json = try merge([source])
    let text = try MergeRefs.run(["--dry-run", source.path, destination.path])

    let summary = try decodedSummary(json.output)
    XCTAssertNil(summary.variants)
    XCTAssertFalse(json.output.contains("\"variants\""), json.output)
    XCTAssertFalse(text.output.contains("by variant"), text.output)
  }
}
