import Foundation
import ReferenceImageCore
import ReferenceMerge
import ReferenceReview
import XCTest

/// The outcome of whole runs, in-process: exit codes follow from the kinds of problems met.
final class MergeSessionTests: XCTestCase {
  private var root: URL!
  private var destination: URL!

  override func setUpWithError() throws {
    root = try makeTemporaryFolder(self)
    destination = root.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
  }

  private let folder = "Tests/SessionTests/__References__"

  private func archive(_ name: String, images: [(String, Int)]) throws -> URL {
    var builder = ArchiveBuilder(generatedAt: day(1))
    for (path, seed) in images { try builder.add(path, try noiseImage(seed: seed)) }
    let url = root.appendingPathComponent(name)
    try builder.write(to: url)
    return url
  }

  /// A finished run's archive with one image, whose manifest lists `reference` as verified.
  private func archive(verifying reference: String) throws -> URL {
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add("\(folder)/a.png", try noiseImage(seed: 1))
    builder.verifiedReferences = [reference]
    let url = root.appendingPathComponent("run.zip")
    try builder.write(to: url)
    return url
  }

  private func session(
    keepGoing: Bool = false, report: URL? = nil, writesNothing: Bool = false
  ) -> MergeSession {
    var options = MergeOptions()
    options.keepGoing = keepGoing
    var session = MergeSession(
      options: options, destination: destination, writesNothing: writesNothing,
      reportURL: report)
    session.report = ReviewReport.write(_:request:)
    return session
  }

  /// A report path below a regular file: the report cannot be written there.
  private func unwritableReport() throws -> URL {
    let file = root.appendingPathComponent("not a folder")
    try writeFile([1], to: file)
    return file.appendingPathComponent("review.html")
  }

  func testRun_reportCannotBeWritten_exitsOneAndWritesNothing() throws {
    let source = try archive("run.zip", images: [("\(folder)/a.png", 1)])
    let before = try snapshot(destination)

    let outcome = session(report: try unwritableReport()).run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.exitCode, MergeSession.ExitCodes.writeFailed)
    XCTAssertEqual(outcome.problems.map(\.kind), [.writeFailed])
    XCTAssertTrue(
      outcome.summary.errors.first?.hasPrefix("could not write the review report") ?? false,
      "\(outcome.summary.errors)")
    assertTreesEqual(try snapshot(destination), before)
  }

  func testRun_reportCannotBeWrittenWithKeepGoing_stillExitsOne() throws {
    let source = try archive("run.zip", images: [("\(folder)/a.png", 1)])

    let outcome = session(keepGoing: true, report: try unwritableReport())
      .run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.exitCode, MergeSession.ExitCodes.writeFailed)
    XCTAssertFalse(FileManager.default.fileExists(atPath: "\(destination.path)/\(folder)/a.png"))
  }

  func testRun_refusedSourceWithKeepGoing_appliesTheRestAndExitsThree() throws {
    let good = try archive("good.zip", images: [("\(folder)/a.png", 1)])
    let bad = try archive("bad.zip", images: [("\(folder)/evil\u{1b}[2J.png", 2)])

    let outcome = session(keepGoing: true).run(sourcePaths: [good.path, bad.path])

    XCTAssertEqual(outcome.exitCode, MergeSession.ExitCodes.refusedInput)
    XCTAssertFalse(outcome.stopsBeforeWriting)
    XCTAssertTrue(FileManager.default.fileExists(atPath: "\(destination.path)/\(folder)/a.png"))
  }

  func testRun_controlCharactersInEntry_refusedNamingTheEscapedEntry() throws {
    let name = "\(folder)/x\u{1b}[2J\n\u{7f}\u{9b}.png"
    let source = try archive("run.zip", images: [(name, 1)])

    let outcome = session().run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.exitCode, MergeSession.ExitCodes.refusedInput)
    let message = try XCTUnwrap(outcome.summary.errors.first)
    XCTAssertTrue(
      message.contains("\(source.path): refused entry '\(folder)/x\\x1b[2J\\x0a\\x7f\\x9b.png'"),
      message)
    XCTAssertTrue(message.contains("control characters"), message)
    XCTAssertFalse(outcome.summary.text().unicodeScalars.contains { $0.value == 0x1B })
    XCTAssertEqual(try snapshot(destination), [:])
  }

  func testRun_controlCharactersInManifestRecord_refused() throws {
    let outcome = session().run(sourcePaths: [try archive(verifying: "\(folder)/b\u{85}.png").path])

    XCTAssertEqual(outcome.exitCode, MergeSession.ExitCodes.refusedInput)
    XCTAssertTrue(
      outcome.summary.errors.contains { $0.contains("'\(folder)/b\\x85.png': a manifest record") },
      "\(outcome.summary.errors)")
  }

  func testRun_manifestRecordClimbingOut_refusedBeforeOrphansAreSought() throws {
    let outcome = session().run(sourcePaths: [try archive(verifying: "../outside/b.png").path])

    XCTAssertEqual(outcome.exitCode, MergeSession.ExitCodes.refusedInput)
    XCTAssertEqual(outcome.summary.orphans, 0)
  }

  /// An up-to-date rerun lists the archive from its central directory instead of visiting
  /// every entry; the entry rules still hold there.
  func testRun_upToDateRerun_stillRefusesAPathThatAppearsTwice() throws {
    var builder = ArchiveBuilder(generatedAt: day(1))
    let png = try builder.add("\(folder)/a.png", try noiseImage(seed: 1))
    builder.images.append(builder.images[0])
    let source = root.appendingPathComponent("twice.zip")
    try builder.write(to: source)
    try writeFile(png, to: destination.appendingPathComponent("\(folder)/a.png"))

    let outcome = session().run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.exitCode, MergeSession.ExitCodes.refusedInput)
    XCTAssertTrue(
      outcome.summary.errors.contains { $0.contains("the path appears twice") },
      "\(outcome.summary.errors)")
  }

  func testRun_upToDateRerun_everythingUnchanged() throws {
    let source = try archive("run.zip", images: [("\(folder)/a.png", 1), ("\(folder)/b.png", 2)])
    XCTAssertEqual(session().run(sourcePaths: [source.path]).summary.added, 2)

    let rerun = session().run(sourcePaths: [source.path])

    XCTAssertEqual(rerun.exitCode, 0)
    XCTAssertEqual(rerun.summary.unchanged, 2, rerun.summary.text())
  }

  // MARK: Git LFS pointers in the destination

  /// The pointer file Git LFS leaves in place of `bytes` until `git lfs pull` fetches them.
  private func lfsPointer(to bytes: [UInt8]) -> [UInt8] {
    Array(
      """
      version https://git-lfs.github.com/spec/v1
      oid sha256:\(SHA256.hex(bytes))
      size \(bytes.count)

      """.utf8)
  }

  func testRun_gitLFSPointerForOtherBytes_refusedNamingGitLFSPullAndNothingWritten() throws {
    let source = try archive("run.zip", images: [("\(folder)/a.png", 1), ("\(folder)/b.png", 2)])
    let stale = try PNGEncoder().encode(try noiseImage(seed: 3))
    try writeFile(lfsPointer(to: stale), to: destination.appendingPathComponent("\(folder)/a.png"))
    let before = try snapshot(destination)

    let outcome = session().run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.exitCode, MergeSession.ExitCodes.refusedInput)
    XCTAssertEqual(
      outcome.problems,
      [.gitLFSPointer(path: destination.appendingPathComponent("\(folder)/a.png").path)])
    let message = outcome.summary.errors.joined()
    XCTAssertTrue(message.contains("Git LFS pointer") && message.contains("git lfs pull"), message)
    assertTreesEqual(try snapshot(destination), before)
  }

  func testRun_gitLFSPointerForTheSameBytes_isUnchanged() throws {
    let image = try noiseImage(seed: 1)
    let source = try archive("run.zip", images: [("\(folder)/a.png", 1)])
    let pointer = destination.appendingPathComponent("\(folder)/a.png")
    try writeFile(lfsPointer(to: try PNGEncoder().encode(image)), to: pointer)
    let before = try snapshot(destination)

    let outcome = session().run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.exitCode, MergeSession.ExitCodes.success, outcome.summary.text())
    XCTAssertEqual(outcome.summary.unchanged, 1, outcome.summary.text())
    assertTreesEqual(try snapshot(destination), before)
  }
}
