import Foundation
import ReferenceContracts
import ReferenceImageCore
import XCTest

/// `MergeInProcess` runs the command itself: its flags, its validation and its `--check`, with
/// nothing parsed by hand and no flag skipped.
final class MergeInProcessTests: XCTestCase {
  private var root: URL!
  private var destination: URL!
  private var archive: URL!

  override func setUpWithError() throws {
    root = try makeTemporaryFolder(self)
    destination = root.appendingPathComponent("package root")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add("Tests/T/__References__/new.png", try noiseImage(seed: 1))
    archive = root.appendingPathComponent("run.zip")
    try builder.write(to: archive)
  }

  func testRun_unknownFlag_isTheCommandsUsageError() throws {
    let result = try MergeInProcess.run(["--no-such-flag", archive.path, destination.path])
    XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
    XCTAssertTrue(result.error.contains("--no-such-flag"), result.all)
  }

  func testRun_validationError_isTheCommandsUsageError() throws {
    let result = try MergeInProcess.run([destination.path, archive.path])
    XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
    XCTAssertTrue(result.error.contains("is a zip file"), result.all)
  }

  func testRun_check_exitsWithTheCommandsStatusAndWritesNothing() throws {
    let result = try MergeInProcess.run([archive.path, "--check", destination.path])
    XCTAssertEqual(result.exitStatus, .checkFoundChanges, result.all)
    XCTAssertFalse(
      FileManager.default.fileExists(
        atPath: destination.appendingPathComponent("Tests/T/__References__/new.png").path))
  }

  func testRun_json_capturesStandardOutput() throws {
    let result = try MergeInProcess.run(["--json", archive.path, destination.path])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    let json = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
    XCTAssertNotNil(json, result.output)
  }

  func testRun_help_isPrintedOnStandardOutput() throws {
    let result = try MergeInProcess.run(["--help"])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(result.output.contains(ExitStatus.helpBlock), result.output)
  }

  /// The help says what a declaration of variants changes, and that --prune deletes redundant
  /// variant files beside the orphans (the help wraps lines, so words are looked for joined).
  func testRun_help_namesVariantsAndWhatPruneDeletes() throws {
    let result = try MergeInProcess.run(["--help"])
    let words = result.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")

    XCTAssertTrue(words.contains("declares variants (ReferenceVariants.json)"), words)
    XCTAssertTrue(words.contains("redundant: listed, and deleted only with --prune"), words)
    XCTAssertTrue(words.contains("Delete orphans ("), words)
    XCTAssertTrue(words.contains("and redundant variant files"), words)
  }
}
