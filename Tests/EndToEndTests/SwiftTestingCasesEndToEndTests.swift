import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import XCTest

/// A Swift Testing package's first week (`CaseFixture`): each case of a parameterized test owns
/// its references, two cases that use one path are refused in every mode and by the merge, and
/// every command a failure prints runs as printed and does what it says.
final class SwiftTestingCasesEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!
  private let icons = "Tests/IconTests/__References__/IconTests"
  private let badges = "Tests/BadgeCaseTests/__References__/BadgeCaseTests"

  override func setUpWithError() throws {
    fixture = try FixturePackage.built("CaseFixture")
    for target in ["IconTests", "BadgeCaseTests"] {
      try? FileManager.default.removeItem(
        at: fixture.root.appendingPathComponent("Tests/\(target)/__References__"))
    }
    try? FileManager.default.removeItem(at: fixture.archiveFolder)
    try? FileManager.default.removeItem(at: fixture.diffFolder)
  }

  /// Two cases that store one name: the run fails naming both cases with their arguments and
  /// the way to name them apart; the merge of its archive exits 3 and lands nothing.
  func testCasesSharingAName_generation_refusedInTheProcessAndByTheMerge() throws {
    let run = try fixture.test(
      ["--filter", "sharedDot"],
      environment: ["IMAGE_GENERATION_MODE": "1", "CASE_FIXTURE_SHARED": "1"])
    XCTAssertNotEqual(run.status, 0, run.all)
    let shared = "\(icons)/shared-dot.png"
    XCTAssertTrue(
      run.all.contains("\(shared) is the reference of two cases of one parameterized test"),
      run.all)
    for size in [16, 32] {
      XCTAssertTrue(
        run.all.contains("IconTests.IconTests/sharedDot(size:) [size → \(size)] (Tests/"),
        run.all)
    }
    XCTAssertTrue(run.all.contains(#"as in `named: "dot-\(size)"`"#), run.all)

    let manifest = try XCTUnwrap(try manifests().first)
    let cases = Set((manifest.referenceUses ?? []).compactMap(\.testCase))
    XCTAssertEqual(cases, ["size → 16", "size → 32"])

    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .refusedInput, merge.all)
    XCTAssertTrue(merge.all.contains("\(shared) is the reference of 2 tests"), merge.all)
    XCTAssertTrue(merge.all.contains("sharedDot(size:) [size → 16]"), merge.all)
    XCTAssertTrue(merge.all.contains("sharedDot(size:) [size → 32]"), merge.all)
    XCTAssertFalse(exists(shared), "nothing lands over a shared path")
  }

  /// Two cases with equal arguments are two owners too, told apart as Swift Testing tells them.
  func testCasesWithEqualArguments_refusedNamingBoth() throws {
    let run = try fixture.test(
      ["--filter", "twice"],
      environment: ["IMAGE_GENERATION_MODE": "1", "CASE_FIXTURE_SHARED": "1"])
    XCTAssertNotEqual(run.status, 0, run.all)
    XCTAssertTrue(run.all.contains("twice-3.png is the reference of two cases"), run.all)
    XCTAssertTrue(
      run.all.contains("twice(n:) [n → 3] (") && run.all.contains("[n → 3 #1]"), run.all)
    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .refusedInput, merge.all)
  }

  /// With a reference in place, verify still refuses the second case instead of comparing it.
  func testCasesSharingAName_verify_refusedNamingBothCases() throws {
    try commit("\(icons)/shared-dot.png", size: 16)
    let run = try fixture.test(
      ["--filter", "sharedDot"], environment: ["CASE_FIXTURE_SHARED": "1"])
    XCTAssertNotEqual(run.status, 0, run.all)
    XCTAssertTrue(run.all.contains("two cases of one parameterized test"), run.all)
    XCTAssertTrue(run.all.contains("[size → 16]") && run.all.contains("[size → 32]"), run.all)
  }

  /// The documented pattern: every case lands under its own name, each use in the manifest
  /// carries its case (non-ASCII, slashed and self-describing arguments included), a case that
  /// throws before asserting stores nothing, and the disabled test is reported skipped.
  func testCasesWithTheirOwnNames_landEach_andTheManifestNamesTheCases() throws {
    let run = try fixture.test(
      [], environment: ["IMAGE_GENERATION_MODE": "1", "CASE_FIXTURE_THROW": "1"])
    XCTAssertNotEqual(run.status, 0, "throwsFirst(n: 2) throws\n" + run.all)
    let uses = try manifests().flatMap { $0.referenceUses ?? [] }
    let labels = Set(uses.compactMap(\.testCase))
    for label in [
      "size → 16", "text → \"café\"", "text → \"設定\"", "text → \"a/b\"",
      "tint → tint warm, scale → 2", "count → 42", "n → 1",
    ] {
      XCTAssertTrue(labels.contains(label), "\(label) in \(labels.sorted())")
    }
    XCTAssertFalse(labels.contains("n → 2"), "the throwing case asserted nothing")
    XCTAssertNil(uses.first { $0.test.hasSuffix("plainBadge()") }?.testCase)

    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    XCTAssertTrue(merge.output.contains("13 added"), merge.all)
    for path in [
      "\(icons)/dot-16.png", "\(icons)/dot-32.png", "\(icons)/label-café.png",
      "\(icons)/label-設定.png", "\(icons)/label-a/b.png", "\(icons)/tint-warm-2.png",
      "\(icons)/thrown-1.png", "\(badges)/count-42.png", "\(badges)/plain.png",
    ] {
      XCTAssertTrue(exists(path), path)
    }
    XCTAssertFalse(exists("\(icons)/thrown-2.png"))
    let verify = try fixture.test(
      ["--filter", "dotIcon|label|tinted|countBadge"], environment: [:])
    XCTAssertEqual(verify.status, 0, verify.all)
  }

  /// A failing case names its arguments, keeps artifacts of its own, and both commands its
  /// message prints run as printed: the merge lands exactly that render, and the plugin's
  /// filter selects the test (a Swift Testing name ends with its source location) and lands it.
  func testFailingCase_messageNamesTheCase_andItsCommandsRunAsPrinted() throws {
    try record()
    let before = try bytes("\(badges)/count-1.png")
    let run = try fixture.test(
      ["--filter", "countBadge"], environment: ["CASE_FIXTURE_CHANGE": "1"])
    XCTAssertNotEqual(run.status, 0, run.all)
    let line = try XCTUnwrap(issueMessage(in: run.all, containing: "count-42.png:"), run.all)
    XCTAssertTrue(line.contains("[count → 42] \(badges)/count-42.png: "), String(line))
    for case_ in ["count=1", "count=42"] {
      let artifact = fixture.diffFolder.appendingPathComponent(
        "\(badges)/count-\(case_.dropFirst(6))[\(case_)].actual.png")
      XCTAssertTrue(FileManager.default.fileExists(atPath: artifact.path), artifact.path)
    }

    let land = try XCTUnwrap(command(in: line, after: "once the tests have finished: "))
    XCTAssertTrue(land.hasPrefix("swift run merge-refs --include \(badges)/count-42.png "), land)
    let landed = try fixture.shell(land, environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(landed.exitStatus, .success, land + "\n" + landed.all)
    XCTAssertTrue(landed.output.contains("0 added, 1 updated"), landed.all)
    XCTAssertEqual(try bytes("\(badges)/count-1.png"), before, "only the printed path lands")

    let plugin = try XCTUnwrap(
      command(in: line, after: "(with the plugin, which renders it again: "))
    XCTAssertTrue(
      plugin.hasSuffix(#"--filter '^BadgeCaseTests\.BadgeRenderTests/countBadge\(count:\)(/|$)'"#),
      plugin)
    let rendered = try fixture.shell(plugin, environment: ["CASE_FIXTURE_CHANGE": "1"])
    XCTAssertEqual(rendered.status, 0, plugin + "\n" + rendered.all)
    XCTAssertFalse(rendered.all.contains("Test run with 0 tests"), rendered.all)
    XCTAssertTrue(rendered.output.contains("0 added, 1 updated"), rendered.all)
    let verify = try fixture.test(
      ["--filter", "countBadge"], environment: ["CASE_FIXTURE_CHANGE": "1"])
    XCTAssertEqual(verify.status, 0, "both cases now pass\n" + verify.all)
  }

  /// A first run with many new images ends with one command that lands them all; pasted as
  /// printed, it does, and the tests pass. The docs' attachments command, as printed, collects
  /// each case's artifacts.
  func testFirstRun_oneCommandLandsEveryKeptRender_andAttachmentsAreCollected() throws {
    let run = try fixture.shell(
      "mkdir -p .build/attachments && swift test --attachments-path .build/attachments "
        + "--filter 'dotIcon|countBadge'", environment: [:])
    XCTAssertNotEqual(run.status, 0, run.all)
    let marker =
      "to make them all references, run this in the package root once the tests "
      + "have finished: "
    let line = try XCTUnwrap(
      run.all.split(separator: "\n").first { $0.contains(marker) }, run.all)
    XCTAssertTrue(line.contains("4 failed comparisons kept their renders"), String(line))
    let command = try XCTUnwrap(command(in: line, after: marker))
    let attachments = try FileManager.default.contentsOfDirectory(
      atPath: fixture.root.appendingPathComponent(".build/attachments").path)
    // Each name carries its reference path (for merge-refs) and its case.
    for (name, label) in [("count-42", "[count=42]"), ("dot-16", "[size=16]")] {
      XCTAssertTrue(
        attachments.contains {
          $0.hasSuffix("\(label).actual.png")
            && FailureAttachmentName(fileName: $0)?.referencePath?.hasSuffix("/\(name).png")
              == true
        }, "\(attachments)")
    }

    let landed = try fixture.shell(command, environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(landed.exitStatus, .success, command + "\n" + landed.all)
    XCTAssertTrue(landed.output.contains("4 added, 0 updated"), landed.all)
    let verify = try fixture.test(["--filter", "dotIcon|countBadge"], environment: [:])
    XCTAssertEqual(verify.status, 0, verify.all)
  }

  /// A damaged reference fails with the one command that restores it: pasted as printed, it
  /// lands the kept render over the damaged file and the test passes again.
  func testDamagedReference_theCommandItPrintsRestoresIt() throws {
    try record()
    let path = "\(icons)/dot-16.png"
    let good = try bytes(path)
    try Data(good.prefix(good.count / 2)).write(to: fixture.root.appendingPathComponent(path))
    let run = try fixture.test(["--filter", "dotIcon"], environment: [:])
    XCTAssertNotEqual(run.status, 0, run.all)
    let line = try XCTUnwrap(
      issueMessage(in: run.all, containing: "\(path) is unreadable"), run.all)
    XCTAssertFalse(line.contains("delete it"), String(line))
    let land = try XCTUnwrap(command(in: line, after: "once the tests have finished: "))
    let landed = try fixture.shell(land, environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(landed.exitStatus, .success, land + "\n" + landed.all)
    XCTAssertTrue(landed.output.contains("0 added, 1 updated"), landed.all)
    let verify = try fixture.test(["--filter", "dotIcon"], environment: [:])
    XCTAssertEqual(verify.status, 0, "restored\n" + verify.all)
  }

  /// A filter that selects no test is an error naming it, never a successful run of nothing.
  func testPluginFilterMatchingNoTest_failsNamingTheFilter() throws {
    let run = try fixture.plugin(["--mode", "failed", "--filter", "NoSuchTest"])
    XCTAssertNotEqual(run.exitStatus, .success, run.all)
    XCTAssertTrue(run.all.contains("--filter 'NoSuchTest' selects no test of"), run.all)
    XCTAssertFalse(run.all.contains("no archive was written"), run.all)
  }

  /// Orphans through `reference-shards` (which sees the disabled and conditional tests
  /// skipped): the skipped tests' file folder is kept, a removed case's reference and the
  /// folder of a renamed test file are orphans, and the renamed folder gets `git mv` advice.
  func testOrphans_skippedTestsKeepOnlyTheirFolder_removedCaseAndRenamedFolderFound() throws {
    try commit("\(icons)/retired.png", size: 5)
    try commit("\(badges)/count-99.png", size: 10)
    let old = "Tests/IconTests/__References__/OldIconTests"
    for size in [16, 32] { try commit("\(old)/dot-\(size).png", size: size) }
    let shard = try generateOneShard()

    let merge = try mergeRefs(["--require-shards", "--dry-run", shard.path, "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    XCTAssertFalse(merge.output.contains("orphans were not looked for"), merge.all)
    for orphan in ["\(badges)/count-99.png", "\(old)/dot-16.png", "\(old)/dot-32.png"] {
      XCTAssertTrue(merge.output.contains("\n  \(orphan)\n"), orphan + "\n" + merge.all)
    }
    XCTAssertFalse(merge.output.contains("  \(icons)/retired.png\n"), merge.all)
    XCTAssertTrue(
      merge.output.contains(
        "1 reference no run used kept for them, in their tests' folders "
          + "(first: \(icons)/retired.png)"), merge.all)
    XCTAssertTrue(merge.output.contains("IconTests.IconTests/retired()"), merge.all)
    // The new folder exists already (the retired test's reference): no `git mv` into it.
    XCTAssertTrue(
      merge.output.contains(
        "  \(old) (2 orphans): the same pixels as the images added in \(icons), a renamed test "
          + "file or suite?\n"), merge.all)

    let pruned = try mergeRefs(["--require-shards", "--prune", shard.path, "."])
    XCTAssertEqual(pruned.exitStatus, .success, pruned.all)
    XCTAssertTrue(pruned.output.contains("3 orphans (3 pruned)"), pruned.all)
    XCTAssertFalse(exists("\(badges)/count-99.png"))
    XCTAssertTrue(exists("\(icons)/retired.png"), "the disabled test's reference stays")
  }

  /// A renamed test file: its old folder holds what the new one would add, so a dry run
  /// prints the `git mv` that keeps their history; pasted in the repository, it leaves
  /// nothing to land and no orphan.
  func testRenamedTestFile_dryRunPrintsTheGitMove_andItWorksWhenPasted() throws {
    let old = "Tests/BadgeCaseTests/__References__/OldBadgeCaseTests"
    for count in [1, 42] { try commitBadge("\(old)/count-\(count).png", count: count) }
    try commitBadge("\(old)/plain.png", count: 7)
    let shard = try generateOneShard()

    let dry = try mergeRefs(["--require-shards", "--dry-run", shard.path, "."])
    XCTAssertEqual(dry.exitStatus, .success, dry.all)
    let marker = "To keep their history, land nothing and run: "
    let line = try XCTUnwrap(
      dry.output.split(separator: "\n").first { $0.hasPrefix("  \(old) (3 orphans)") }, dry.all)
    let move = try XCTUnwrap(command(in: line, after: marker), String(line))
    XCTAssertEqual(move, "git mv \(old) \(badges)")

    let commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "references"]
    for git in [["init", "-q"], ["add", "-A", "Tests"], commit] {
      let result = try fixture.run(["git"] + git, environment: [:])
      XCTAssertEqual(result.status, 0, result.all)
    }
    let moved = try fixture.shell(move, environment: [:])
    XCTAssertEqual(moved.status, 0, moved.all)
    let again = try mergeRefs(["--require-shards", "--dry-run", shard.path, "."])
    XCTAssertEqual(again.exitStatus, .success, again.all)
    XCTAssertTrue(again.output.contains(" 0 orphans"), again.all)
    XCTAssertFalse(again.output.contains("  \(badges)/count-1.png\n"), again.all)
    let status = try fixture.run(["git", "status", "--porcelain"], environment: [:])
    XCTAssertTrue(
      status.output.contains("R  \(old)/count-1.png -> \(badges)/count-1.png"), status.all)
    try? FileManager.default.removeItem(at: fixture.root.appendingPathComponent(".git"))
  }

  // MARK: Helpers

  /// Every test as the one shard of a `reference-shards` plan in mode `all`, as the plugin runs
  /// them: the shard folder.
  private func generateOneShard() throws -> URL {
    let shard = fixture.root.appendingPathComponent(".build/case-shard")
    try? FileManager.default.removeItem(at: shard)
    let run = try fixture.run(
      [
        try builtProduct("reference-shards").path, "run", "--index", "0", "--count", "1",
        "--output", shard.path,
      ], environment: ["GITHUB_SHA": "c0ffee", "IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    return shard
  }

  /// A badge reference with exactly the pixels the fixture renders for `count`.
  private func commitBadge(_ path: String, count: Int) throws {
    let url = fixture.root.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let image = try RGBAImage(
      width: 10, height: 10, color: RGBAColor(red: UInt8(count * 5), green: 128, blue: 0))
    try Data(try PNGEncoder().encode(image)).write(to: url)
  }

  private func record() throws {
    let run = try fixture.test(
      ["--filter", "dotIcon|countBadge|plainBadge"], environment: ["IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(run.status, 0, run.all)
    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    try FileManager.default.removeItem(at: fixture.archiveFolder)
  }

  /// The command that follows `marker` on a message line, up to the next ` (` or `)`.
  /// The whole message of the issue whose first line holds `text`: Swift Testing prints a
  /// message's first line after "↳" and its other lines (a failure's region lines, the landing
  /// command) below it, up to the next issue or result.
  private func issueMessage(in output: String, containing text: String) -> Substring? {
    let lines = output.split(separator: "\n")
    guard let first = lines.firstIndex(where: { $0.contains(text) }) else { return nil }
    let rest = lines[(first + 1)...].prefix { !$0.hasPrefix("✘") && !$0.hasPrefix("↳") }
    return Substring(([lines[first]] + rest).joined(separator: "\n"))
  }

  private func command(in line: Substring, after marker: String) -> String? {
    guard let start = line.range(of: marker) else { return nil }
    var rest = line[start.upperBound...]
    if let end = rest.firstIndex(of: "\n") { rest = rest[..<end] }
    if let cut = rest.range(of: " (with the plugin") { rest = rest[..<cut.lowerBound] }
    if marker.hasPrefix("(") { rest = rest.dropLast() }
    return rest.trimmingCharacters(in: .whitespaces)
  }

  private func manifests() throws -> [ArchiveManifest] {
    try fixture.archives().map(manifest(ofArchive:))
  }

  private func commit(_ path: String, size: Int) throws {
    let url = fixture.root.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let image = try RGBAImage(
      width: size, height: size, color: RGBAColor(red: 40, green: 0, blue: 215))
    try Data(try PNGEncoder().encode(image)).write(to: url)
  }

  private func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent(path).path)
  }

  private func bytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: fixture.root.appendingPathComponent(path)))
  }

  private func mergeRefs(_ arguments: [String]) throws -> ProcessOutput {
    try fixture.run([try mergeRefsBinary().path] + arguments, environment: [:])
  }
}
