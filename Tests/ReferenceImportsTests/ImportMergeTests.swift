import Foundation
import ReferenceContracts
import SyntheticBundles
import TestSupport
import XCTest

/// `merge-refs Run.xcresult .` and the same for an attachment export folder, as the
/// LandingFromXcode article prints them.
final class ImportMergeTests: XCTestCase {
  private let snapshots = "Tests/AppTests/__Snapshots__/SnapTests"

  /// The real bundle and the export `xcresulttool` made of it plan the same: same paths,
  /// outcomes and contexts, the same attachments not landed for the same reasons.
  func testTheRealBundleAndItsExportGiveTheSamePlan() throws {
    let bundle = try RealFixtures.screenshotbotBundle
    let export = try RealFixtures.screenshotbotExport
    let destination = try makeTemporaryFolder(self)
    let folder = destination.appendingPathComponent(
      "Tests/SimpleProjectTests/__Snapshots__/SnapshotTest")
    // One reference with other pixels (updated), one with the same bytes (unchanged).
    try writeFile(
      try samplePNG(9, width: 40, height: 30),
      to: folder.appendingPathComponent("testExample.1.png"))
    try writeFile(
      Array(
        try Data(
          contentsOf: export.appendingPathComponent("CE85A51E-5309-4968-BB1A-333BA6E9E9C2.png"))),
      to: folder.appendingPathComponent("testLoginViewSnapshot.1.png"))
    let before = try contents(of: destination)

    let fromBundle = try plan(bundle, destination)
    let fromExport = try plan(export, destination)
    XCTAssertEqual(fromBundle, fromExport)
    XCTAssertEqual(fromBundle.changes.map(\.outcome), ["updated"])
    XCTAssertEqual(fromBundle.unchanged, 1)
    XCTAssertEqual(fromBundle.notLanded.count, 4, "the four Launch Screen renders")
    XCTAssertTrue(fromBundle.notLanded.allSatisfy { $0.contains("not named after its test") })
    XCTAssertEqual(try contents(of: destination), before, "a dry run writes nothing")
  }

  /// What one plan says, with the container's path taken out.
  private struct Plan: Equatable {
    var changes: [Change]
    var unchanged: Int
    var conflicts: Int
    var notLanded: [String]
    struct Change: Equatable { var path: String, outcome: String, sources: [String] }
  }

  private func plan(_ source: URL, _ destination: URL) throws -> Plan {
    let run = try mergeRefs([source.path, destination.path, "--dry-run", "--json"])
    XCTAssertEqual(run.status, 0, run.all)
    let json = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    let strip = { (text: String) in text.replacingOccurrences(of: source.path, with: "<source>") }
    let changes = (json["changes"] as? [[String: Any]] ?? []).map {
      Plan.Change(
        path: $0["path"] as? String ?? "", outcome: $0["outcome"] as? String ?? "",
        sources: ($0["sources"] as? [String] ?? []).map(strip))
    }
    let reasons = (json["sources"] as? [[String: Any]] ?? []).compactMap {
      $0["incompleteReason"] as? String
    }
    let notLanded = reasons.flatMap { reason in
      reason.components(separatedBy: "\n  - ").dropFirst().map(strip)
    }
    return Plan(
      changes: changes, unchanged: json["unchanged"] as? Int ?? -1,
      conflicts: json["conflicts"] as? Int ?? -1, notLanded: notLanded.sorted())
  }

  /// Two configurations that render one snapshot differently: a conflict naming both,
  /// nothing written; equal renders on other devices, arguments and repetitions land once.
  func testRendersOfOneNameConflictByContextAndEqualOnesLandOnce() throws {
    let folder = try makeTemporaryFolder(self)
    let destination = folder.appendingPathComponent("package")
    let reference = destination.appendingPathComponent("\(snapshots)/testTitle.1.png")
    try writeFile(try samplePNG(1), to: reference)
    try writeFile(
      try samplePNG(1), to: destination.appendingPathComponent("\(snapshots)/testBody.1.png"))
    let attachment = { (name: String, shade: UInt8) in
      SyntheticBundle.Attachment(
        fileName: "\(name)_0_\(UUID().uuidString).png", bytes: try samplePNG(shade))
    }
    var bundle = SyntheticBundle(url: folder.appendingPathComponent("Run.xcresult"))
    try bundle.write([
      .init(
        identifier: "SnapTests/testTitle()", configuration: "en",
        attachments: [try attachment("testTitle.1", 2)]),
      .init(
        identifier: "SnapTests/testTitle()", configuration: "de",
        attachments: [try attachment("testTitle.1", 3)]),
      .init(
        identifier: "SnapTests/testBody()", device: "iPad", arguments: ["dark"], repetition: 1,
        attachments: [try attachment("testBody.1", 4)]),
      .init(
        identifier: "SnapTests/testBody()", device: "iPhone 16", arguments: ["light"],
        repetition: 2, attachments: [try attachment("testBody.1", 4)]),
    ])
    let before = try contents(of: destination)
    let run = try mergeRefs([bundle.url.path, destination.path])
    XCTAssertEqual(run.status, ExitStatus.conflicts.rawValue, run.all)
    XCTAssertTrue(run.all.contains("configuration en"), run.all)
    XCTAssertTrue(run.all.contains("configuration de"), run.all)
    XCTAssertEqual(try contents(of: destination), before, "a conflict writes nothing")

    let landed = try mergeRefs([
      bundle.url.path, destination.path, "--include", "**/testBody.1.png",
    ])
    XCTAssertEqual(landed.status, 0, landed.all)
    XCTAssertTrue(landed.output.contains("1 updated"), landed.all)
    XCTAssertEqual(
      Array(
        try Data(contentsOf: destination.appendingPathComponent("\(snapshots)/testBody.1.png"))),
      try samplePNG(4))
  }

  /// One test attaching a name twice with other pixels: the conflict names the second render
  /// by its activity and the name it was stored under, not by a number.
  func testARepeatedNameInOneContext_isNamedByActivityAndStoredName() throws {
    let folder = try makeTemporaryFolder(self)
    let destination = folder.appendingPathComponent("package")
    try writeFile(
      try samplePNG(1), to: destination.appendingPathComponent("\(snapshots)/testTitle.1.png"))
    let second = "testTitle.1_1_\(UUID().uuidString).png"
    var bundle = SyntheticBundle(url: folder.appendingPathComponent("Run.xcresult"))
    try bundle.write([
      .init(
        identifier: "SnapTests/testTitle()",
        attachments: [
          .init(fileName: "testTitle.1_0_\(UUID().uuidString).png", bytes: try samplePNG(2)),
          .init(fileName: second, bytes: try samplePNG(3)),
        ])
    ])
    let run = try mergeRefs([bundle.url.path, destination.path])
    XCTAssertEqual(run.status, ExitStatus.conflicts.rawValue, run.all)
    XCTAssertTrue(
      run.all.contains(
        "configuration Default, device iPhone 16, activity 'Attached Recorded Snapshot', "
          + "attached as '\(second)'"), run.all)
    XCTAssertFalse(run.all.contains(" #2"), run.all)
  }

  /// The archive the Apple coordinator attaches is a source like the zip on disk, named with
  /// its test and context.
  func testAnAttachedArchiveIsASourceLikeAZipOnDisk() throws {
    let folder = try makeTemporaryFolder(self)
    let destination = folder.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    let path = "Tests/AppTests/__References__/chart.png"
    let zip = try coordinatorArchive([(path, try samplePNG(5))], in: folder)
    var bundle = SyntheticBundle(url: folder.appendingPathComponent("Run.xcresult"))
    try bundle.write([
      .init(
        identifier: "AppTests/testRender()", configuration: "en", device: "iPhone 16",
        repetition: 2,
        attachments: [
          .init(fileName: "ReferenceImages-1.zip", typeIdentifier: "public.zip-archive", bytes: zip)
        ])
    ])
    let run = try mergeRefs([bundle.url.path, destination.path, "--json"])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertEqual(
      Array(try Data(contentsOf: destination.appendingPathComponent(path))), try samplePNG(5))
    XCTAssertTrue(
      run.all.contains(
        "ReferenceImages-1.zip [AppTests/testRender() [configuration en, device iPhone 16, repetition 2]]"
      ),
      run.all)
    XCTAssertFalse(
      run.all.contains("incomplete"), "a finished run's archive is complete: \(run.all)")
  }

  /// A bundle that holds no image at all still says what it skipped.
  func testTheXcode11BundleListsItsHEICAsSkipped() throws {
    let destination = try makeTemporaryFolder(self)
    let run = try mergeRefs([try RealFixtures.xcparseBundle.path, destination.path, "--dry-run"])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertTrue(run.all.contains("skipped, HEIC is not a reference"), run.all)
    XCTAssertTrue(run.all.contains("named as PNG"), "HEIC bytes under public.png: \(run.all)")
    XCTAssertEqual(try contents(of: destination), [:])
  }
}

/// The commands of the LandingFromXcode article, run as printed on the real bundle and its
/// export (`swift run merge-refs` is the built binary; `Run.xcresult` and
/// `xcresult-attachments` are the fixtures).
final class LandingArticleTests: XCTestCase {
  func testTheArticleCommandsRunOnTheRealBundleAndExport() throws {
    let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let article = try String(
      contentsOf: checkout.appendingPathComponent(
        "Sources/ReferenceImageTesting/ReferenceImageTesting.docc/LandingFromXcode.md"),
      encoding: .utf8)
    let start = try XCTUnwrap(article.range(of: "```sh\n"))
    let end = try XCTUnwrap(article[start.upperBound...].range(of: "```"))
    let commands = article[start.upperBound..<end.lowerBound].split(separator: "\n")
    XCTAssertEqual(commands.count, 4)
    let destination = try makeTemporaryFolder(self)
    let reference = destination.appendingPathComponent(
      "Tests/SimpleProjectTests/__Snapshots__/SnapshotTest/testExample.1.png")
    try writeFile(try samplePNG(9), to: reference)
    let fixtures = [
      "Run.xcresult": try RealFixtures.screenshotbotBundle.path,
      "xcresult-attachments": try RealFixtures.screenshotbotExport.path,
    ]
    for (index, command) in commands.enumerated() {
      if index == 3 {
        // Two workers' trees that hold the reference as it now is.
        for worker in ["worker-1", "worker-2"] {
          try writeFile(
            Array(try Data(contentsOf: reference)),
            to: destination.appendingPathComponent(worker).appendingPathComponent(
              "Tests/SimpleProjectTests/__Snapshots__/SnapshotTest/testExample.1.png"))
        }
      }
      var words = command.split(separator: " ").map(String.init)
      XCTAssertEqual(Array(words.prefix(3)), ["swift", "run", "merge-refs"])
      words = words.dropFirst(3).map { fixtures[$0] ?? $0 }
      let run = try mergeRefs(words, in: destination)
      XCTAssertEqual(run.status, 0, "\(command): \(run.all)")
    }
    let export = try RealFixtures.screenshotbotExport
    XCTAssertEqual(
      try Data(contentsOf: reference),
      try Data(
        contentsOf: export.appendingPathComponent("BF65B0E7-0E2B-4C2C-B067-4F3DE913F10E.png")),
      "the bundle's recorded snapshot landed")
  }
}
