import Foundation
import ReferenceContracts
import ReferenceMerge
import XCTest

/// Counts the progress a merge reports; reading sources reports each one.
private final class CountingProgress: MergeProgress, @unchecked Sendable {
  private let lock = NSLock()
  private var stages: [String] = []
  var reported: [String] { lock.withLock { stages } }
  func update(_ stage: String, _ done: Int, _ total: Int) {
    lock.withLock { stages.append(stage) }
  }
  func clear() {}
}

/// A merge whose inputs' records already prove it wrong stops before reading a source:
/// nothing is read, staged or written, and the exit status is the refusal's.
final class RecordCheckTests: XCTestCase {
  private func session(
    destination: URL, progress: CountingProgress, refusing: Bool
  ) -> MergeSession {
    var session = MergeSession(
      options: MergeOptions(), destination: destination, writesNothing: false,
      progress: progress)
    session.recordCheck = { refusing ? [.unprovenShards("shard 2 of 3 is missing")] : [] }
    return session
  }

  func testRecordProblems_stopTheMergeBeforeAnySourceIsRead() throws {
    let root = try makeTemporaryFolder(self)
    let package = root.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add("Tests/A/__References__/T/a.png", try noiseImage(seed: 1))
    let archive = root.appendingPathComponent("a.zip")
    try builder.write(to: archive)
    let before = try snapshot(package)

    let progress = CountingProgress()
    let refused = session(destination: package, progress: progress, refusing: true)
      .run(sourcePaths: [archive.path])

    XCTAssertEqual(refused.exitCode, ExitStatus.refusedInput.rawValue)
    XCTAssertEqual(refused.problems, [.unprovenShards("shard 2 of 3 is missing")])
    XCTAssertEqual(progress.reported, [], "no source was read")
    XCTAssertEqual(refused.summary.sources.count, 0)
    assertTreesEqual(try snapshot(package), before)

    // The same merge without the refusal reads the source and lands its image.
    let landed = session(destination: package, progress: progress, refusing: false)
      .run(sourcePaths: [archive.path])
    XCTAssertEqual(landed.exitCode, ExitStatus.success.rawValue)
    XCTAssertEqual(landed.summary.added, 1)
    XCTAssertFalse(progress.reported.isEmpty, "reading the source reports progress")
  }
}

/// `--require-complete` refuses a run whose manifest says it was cut short from the manifests
/// alone: no image is read or staged.
final class DeclaredCompletionTests: XCTestCase {
  func testRequireComplete_refusesACutShortRunBeforeReadingAnyImage() throws {
    let merge = try MergeScenario(self)
    let finished = try merge.archive("finished.zip", ["a": .seed(1)])
    let cut = try merge.archive("cut.zip", ["b": .seed(2)]) { $0.completion = .running }
    let before = try merge.package()
    var options = MergeOptions()
    options.requireComplete = true
    let progress = CountingProgress()
    let session = MergeSession(
      options: options, destination: merge.destination, writesNothing: false,
      progress: progress)

    let refused = session.run(sourcePaths: [finished.path, cut.path])

    XCTAssertEqual(refused.exitCode, ExitStatus.refusedInput.rawValue)
    XCTAssertEqual(refused.problems, [.incompleteSources])
    XCTAssertEqual(progress.reported, [], "no image was read")
    XCTAssertEqual(refused.summary.sources.map(\.name), [cut.path])
    XCTAssertEqual(
      refused.summary.sources.first?.incompleteReason,
      "the run was cut short (manifest says running)")
    assertTreesEqual(try merge.package(), before)
  }

  func testRequireComplete_finishedRunsAreMergedAsBefore() throws {
    let merge = try MergeScenario(self)
    try merge.archive("finished.zip", ["a": .seed(1)])
    merge.options.requireComplete = true
    let verdict = merge.run()
    XCTAssertEqual(verdict.status, .success)
    XCTAssertEqual(verdict.outcomes, ["a": .added])
  }
}
