import Foundation
import ReferenceArchive
import ReferenceContracts
import XCTest

/// References per platform with real `swift test` runs of the fixture, a variant standing for a
/// platform: the Variants article's commands land exactly the variant files that differ, each
/// variant verifies against its chain, a variant that stops differing is redundant, and an
/// undeclared variant is refused by name.
final class VariantsEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!
  private let folder = "Tests/ChartTests/__References__"
  private let xctestOnly = ["--disable-swift-testing", "--filter", "BarChartTests|CheckerTests"]

  override func setUpWithError() throws {
    fixture = try FixturePackage.built()
    try fixture.reset()
    try Data(
      """
      {"schemaVersion": 1, "base": "\(ReferencePlatform.current)",
       "variants": {"linux-arm64": ["linux"], "linux": []}}
      """.utf8
    ).write(to: fixture.root.appendingPathComponent(ReferenceVariants.fileName))
  }

  override func tearDownWithError() throws {
    try fixture?.reset()
  }

  private func path(_ test: String, _ name: String, _ variant: String? = nil) -> String {
    VariantPath.path(of: "\(folder)/\(test)/\(name).png", variant: variant)
  }

  private func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent(path).path)
  }

  /// The article's three commands, pasted as written; the variant's run renders its bar charts
  /// 3 pixels apart (`RENDER_FIXTURE_CHANGE=bars`), as another platform's fonts would.
  func testArticleCommands_landExactlyTheVariantFilesThatDiffer() throws {
    let lines = try articleCommands()
    XCTAssertEqual(lines.count, 3, "\(lines)")
    let base = try fixture.shell(lines[0], environment: [:])
    XCTAssertEqual(base.status, 0, base.all)
    let variant = try fixture.shell(lines[1], environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertEqual(variant.status, 0, variant.all)
    let merge = try fixture.shell(lines[2], environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)

    XCTAssertTrue(exists(path("BarChartTests", "bars")))
    XCTAssertTrue(exists(path("BarChartTests", "bars", "linux-arm64")), merge.all)
    XCTAssertTrue(exists(path("BarChartTests", "flat-bars", "linux-arm64")), merge.all)
    for name in ["small-cells", "large-cells"] {
      XCTAssertTrue(exists(path("CheckerTests", name)))
      XCTAssertFalse(exists(path("CheckerTests", name, "linux-arm64")), "\(name) renders alike")
    }
    XCTAssertTrue(merge.output.contains("variant renders equal to the fallback"), merge.all)

    // Each variant verifies against its own chain.
    let verifyBase = try fixture.test(xctestOnly, environment: [:])
    XCTAssertEqual(verifyBase.status, 0, verifyBase.all)
    let verifyVariant = try fixture.test(
      xctestOnly,
      environment: ["IMAGE_REFERENCE_VARIANT": "linux-arm64", "RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertEqual(verifyVariant.status, 0, verifyVariant.all)
    let wrong = try fixture.test(
      xctestOnly, environment: ["IMAGE_REFERENCE_VARIANT": "linux-arm64"])
    XCTAssertNotEqual(wrong.status, 0, "its own file differs from the base's pixels")
    XCTAssertTrue(
      wrong.all.contains("compared with \(path("BarChartTests", "bars", "linux-arm64"))"),
      wrong.all)
  }

  /// The article's commands in a package whose base references exist, so the base run records
  /// its images unchanged (the default): the variant renders 2 levels redder
  /// (`RENDER_FIXTURE_CHANGE=tint`), which the tolerance and perceptual tests call equal and
  /// the exact ones do not. Only the exact tests' variant files land, and a later merge of the
  /// variant's run alone changes nothing: no file flips between needed and redundant.
  func testArticleCommands_overCommittedBase_judgeEachRenderByItsTestsComparison() throws {
    let lines = try articleCommands()
    XCTAssertEqual(try fixture.shell(lines[0], environment: [:]).status, 0)
    XCTAssertEqual(try mergeRefs([".build/reference-images", "."]).exitStatus, .success)
    try FileManager.default.removeItem(at: fixture.archiveFolder)
    let shim = ["PATH": try swiftShimPath()]

    let base = try fixture.shell(lines[0], environment: [:])
    XCTAssertEqual(base.status, 0, base.all)
    let arm = try fixture.shell(lines[1], environment: ["RENDER_FIXTURE_CHANGE": "tint"])
    XCTAssertEqual(arm.status, 0, arm.all)
    let merge = try fixture.shell(lines[2], environment: shim)
    XCTAssertEqual(merge.exitStatus, .success, merge.all)

    let badges = "Tests/BadgeTests/__References__/BadgeTests"
    XCTAssertFalse(exists("\(badges)/wide@@linux-arm64.png"), "tolerance(2): \(merge.all)")
    XCTAssertFalse(exists(path("BarChartTests", "bars", "linux-arm64")), "perceptual: \(merge.all)")
    XCTAssertTrue(exists("\(badges)/passing@@linux-arm64.png"), "exact: \(merge.all)")
    XCTAssertTrue(exists(path("BarChartTests", "flat-bars", "linux-arm64")), merge.all)
    let equal = try XCTUnwrap(equalToTheFallback(merge.output), merge.all)
    XCTAssertGreaterThanOrEqual(equal, 2, merge.all)

    try FileManager.default.removeItem(at: fixture.archiveFolder)
    XCTAssertEqual(
      try fixture.shell(lines[1], environment: ["RENDER_FIXTURE_CHANGE": "tint"]).status, 0)
    let again = try fixture.shell(lines[2], environment: shim)
    XCTAssertEqual(again.exitStatus, .success, again.all)
    XCTAssertTrue(again.output.contains("0 added, 0 updated, "), again.all)
    XCTAssertFalse(again.output.contains("redundant"), again.all)
    XCTAssertEqual(equalToTheFallback(again.output), equal, again.all)
  }

  /// Variant files that the tolerance and perceptual tests now call equal to the base (as the
  /// merge before issue 35's fix landed them) are found redundant by the article's commands,
  /// although the variant's run finds its own files holding its renders and records them
  /// unchanged (the default, not `IMAGE_GENERATION_REENCODE=1`): the unchanged records carry
  /// the test's comparison. The exact tests' renders differ from the base, so they land.
  func testArticleCommands_variantRecordedUnchanged_filesItsTestCallsEqualAreRedundant() throws {
    let lines = try articleCommands()
    XCTAssertEqual(try fixture.shell(lines[0], environment: [:]).status, 0)
    XCTAssertEqual(try mergeRefs([".build/reference-images", "."]).exitStatus, .success)
    try FileManager.default.removeItem(at: fixture.archiveFolder)
    let tint = ["RENDER_FIXTURE_CHANGE": "tint"]
    XCTAssertEqual(try fixture.shell(lines[1], environment: tint).status, 0)
    let wide = "Tests/BadgeTests/__References__/BadgeTests/wide@@linux-arm64.png"
    let bars = path("BarChartTests", "bars", "linux-arm64")
    try landAsIs([wide, bars], from: try fixture.archives())
    try FileManager.default.removeItem(at: fixture.archiveFolder)

    let shim = ["PATH": try swiftShimPath()]
    let base = try fixture.shell(lines[0], environment: [:])
    XCTAssertEqual(base.status, 0, base.all)
    let arm = try fixture.shell(lines[1], environment: tint)
    XCTAssertEqual(arm.status, 0, arm.all)
    let unchanged = try fixture.archives().flatMap { try entries(of: $0).unchanged }
    XCTAssertTrue(Set(unchanged).isSuperset(of: [wide, bars]), "\(unchanged)")
    let merge = try fixture.shell(lines[2], environment: shim)
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    XCTAssertTrue(merge.output.contains(", 2 redundant"), merge.all)
    XCTAssertTrue(exists(wide) && exists(bars), "never deleted without --prune")
    XCTAssertTrue(exists(path("BarChartTests", "flat-bars", "linux-arm64")), "exact: \(merge.all)")

    let pruned = try mergeRefs(["--prune", ".build/reference-images", "."])
    XCTAssertEqual(pruned.exitStatus, .success, pruned.all)
    XCTAssertFalse(exists(wide), pruned.all)
    XCTAssertFalse(exists(bars), pruned.all)
    XCTAssertTrue(exists("Tests/BadgeTests/__References__/BadgeTests/passing@@linux-arm64.png"))
  }

  /// Writes archived renders into the package unjudged, as a merge that ignored the tests'
  /// comparisons did.
  private func landAsIs(_ paths: [String], from archives: [URL]) throws {
    var files: [String: [UInt8]] = [:]
    for archive in archives { files.merge(try entries(of: archive).files) { $1 } }
    for path in paths {
      let bytes = try XCTUnwrap(files[path], "\(path) is in none of \(archives)")
      try Data(bytes).write(to: fixture.root.appendingPathComponent(path))
    }
  }

  /// An archive's PNG entries by path, and the paths its manifest records unchanged.
  private func entries(of archive: URL) throws -> (files: [String: [UInt8]], unchanged: [String]) {
    var files: [String: [UInt8]] = [:]
    var unchanged: [String] = []
    try ZipReader().forEachEntry(in: .file(archive), failure: { $0 }) { (entry) throws(any Error) in
      guard entry.path == ArchiveManifest.entryName else { return files[entry.path] = entry.bytes }
      let manifest = try ArchiveManifest.decode(Data(entry.bytes), source: archive.path)
      unchanged += (manifest.unchangedImages ?? []).map(\.path)
    }
    return (files, unchanged)
  }

  /// N of the summary's "N variant renders equal to the fallback".
  private func equalToTheFallback(_ output: String) -> Int? {
    guard let range = output.range(of: " variant renders equal to the fallback") else {
      return nil
    }
    return Int(output[..<range.lowerBound].split(separator: " ").last ?? "")
  }

  /// A variant that renders like the base again: its files are redundant, listed, and deleted
  /// only with --prune.
  func testVariantThatStopsDiffering_isRedundantAndPrunedOnlyWithPrune() throws {
    for environment in [
      ["IMAGE_GENERATION_MODE": "1"],
      [
        "IMAGE_GENERATION_MODE": "1", "IMAGE_REFERENCE_VARIANT": "linux",
        "RENDER_FIXTURE_CHANGE": "bars",
      ],
    ] {
      XCTAssertEqual(try fixture.test(xctestOnly, environment: environment).status, 0)
    }
    XCTAssertEqual(try mergeRefs([".build/reference-images", "."]).exitStatus, .success)
    XCTAssertTrue(exists(path("BarChartTests", "bars", "linux")))
    try FileManager.default.removeItem(at: fixture.archiveFolder)

    let again = try fixture.test(
      xctestOnly, environment: ["IMAGE_GENERATION_MODE": "1", "IMAGE_REFERENCE_VARIANT": "linux"])
    XCTAssertEqual(again.status, 0, again.all)
    let listed = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(listed.exitStatus, .success, listed.all)
    XCTAssertTrue(listed.output.contains("2 redundant"), listed.all)
    XCTAssertTrue(exists(path("BarChartTests", "bars", "linux")), "never deleted without --prune")
    let pruned = try mergeRefs(["--prune", ".build/reference-images", "."])
    XCTAssertEqual(pruned.exitStatus, .success, pruned.all)
    XCTAssertFalse(exists(path("BarChartTests", "bars", "linux")))
    XCTAssertFalse(exists(path("BarChartTests", "flat-bars", "linux")))
    XCTAssertTrue(exists(path("BarChartTests", "bars")), "the base stays")
  }

  func testUndeclaredVariant_failsEveryAssertionNamingTheDeclaredOnes() throws {
    let run = try fixture.test(
      xctestOnly, environment: ["IMAGE_GENERATION_MODE": "1", "IMAGE_REFERENCE_VARIANT": "ios"])

    XCTAssertNotEqual(run.status, 0)
    XCTAssertTrue(
      run.all.contains(#"variant "ios" is not declared in ReferenceVariants.json"#), run.all)
    XCTAssertTrue(run.all.contains("declared: linux, linux-arm64"), run.all)
    XCTAssertFalse(exists(path("BarChartTests", "bars")))
  }

  /// A machine whose platform the declaration does not name fails verification against the
  /// base: its failure prints no landing command, and the command it used to print (the base
  /// path from that archive) is refused by name, exit 3, the base untouched.
  func testUndeclaredPlatform_failurePrintsNoLandingCommand_andItsArchiveIsRefused() throws {
    try FileManager.default.removeItem(
      at: fixture.root.appendingPathComponent(ReferenceVariants.fileName))
    let filter = ["--disable-swift-testing", "--filter", "BarChartTests"]
    XCTAssertEqual(try fixture.test(filter, environment: ["IMAGE_GENERATION_MODE": "1"]).status, 0)
    XCTAssertEqual(try mergeRefs([".build/reference-images", "."]).exitStatus, .success)
    try FileManager.default.removeItem(at: fixture.archiveFolder)
    let elsewhere = ReferencePlatform.current == "macos-arm64" ? "linux-arm64" : "macos-arm64"
    try Data(
      #"{"schemaVersion": 1, "base": "\#(elsewhere)", "variants": {"ios": []}}"#.utf8
    ).write(to: fixture.root.appendingPathComponent(ReferenceVariants.fileName))
    let bars = path("BarChartTests", "bars")
    let before = try Data(contentsOf: fixture.root.appendingPathComponent(bars))

    let run = try fixture.test(filter, environment: ["RENDER_FIXTURE_CHANGE": "bars"])

    XCTAssertNotEqual(run.status, 0)
    XCTAssertTrue(run.all.contains("is not declared in ReferenceVariants.json"), run.all)
    XCTAssertTrue(run.all.contains("its renders cannot become references"), run.all)
    XCTAssertFalse(run.all.contains("merge-refs"), run.all)
    let archive = try XCTUnwrap(try fixture.archives().last, "the run keeps its failed render")
    let pasted = try fixture.shell(
      ShellWord.line(["swift", "run", "merge-refs", "--include", bars, archive.path, "."]),
      environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(pasted.status, ExitStatus.refusedInput.rawValue, pasted.all)
    XCTAssertTrue(
      pasted.all.contains(
        "\(archive.path) holds renders of \(ReferencePlatform.current) (undeclared)"), pasted.all)
    XCTAssertTrue(pasted.all.contains("(the base is \(elsewhere))"), pasted.all)
    XCTAssertEqual(try Data(contentsOf: fixture.root.appendingPathComponent(bars)), before)
  }

  /// The `sh` block of the Variants article that starts the generation, one command a line.
  private func articleCommands() throws -> [String] {
    let text = try String(
      contentsOf: FixturePackage.checkout.appendingPathComponent(
        "Sources/ReferenceImageTesting/ReferenceImageTesting.docc/Variants.md"),
      encoding: .utf8)
    let start = try XCTUnwrap(text.range(of: "```sh\nIMAGE_GENERATION_MODE=1 swift test\n"))
    let block = text[start.upperBound...]
    let end = try XCTUnwrap(block.range(of: "```"))
    return ["IMAGE_GENERATION_MODE=1 swift test"]
      + block[..<end.lowerBound].split(separator: "\n").map(String.init)
  }

  private func mergeRefs(_ arguments: [String]) throws -> ProcessOutput {
    try fixture.run([try mergeRefsBinary().path] + arguments, environment: [:])
  }
}
