import Foundation
import ReferenceContracts
import ReferenceMerge
import XCTest

/// A merge whose inputs' records already prove it wrong stops before reading a source:
/// nothing is read, staged or written, and the exit status is the refusal's.
final class RecordCheckTests: XCTestCase {
  /// Counts the progress the merge reports; reading sources reports each one.
  private final class CountingProgress: MergeProgress, @unchecked Sendable {
    private let lock = NSLock()
    private var stages: [String] = []
    var reported: [String] { lock.withLock { stages } }
    func update(_ stage: String, _ done: Int, _ total: Int) {
      lock.withLock { stages.append(stage) }
    }
    func clear() {}
  }

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
