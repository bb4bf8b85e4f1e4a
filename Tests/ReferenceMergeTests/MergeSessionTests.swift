import Foundation
import ReferenceImageCore
import ReferenceMerge
import ReferenceReview
import XCTest

/// The outcome of whole runs: exit statuses follow from the kinds of problems met.
final class MergeSessionTests: XCTestCase {
  private var merge: MergeScenario!

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: "Tests/SessionTests/__References__")
    merge.reportWriter = ReviewReport.write(_:request:)
  }

  /// A finished run's archive with one image, whose manifest lists `reference` as verified.
  private func run(verifying reference: String) throws {
    try merge.archive("run.zip", ["a": .seed(1)]) { $0.verifiedReferences = [reference] }
  }

  /// A report path below a regular file: the report cannot be written there.
  private func unwritableReport() throws -> URL {
    let file = merge.root.appendingPathComponent("not a folder")
    try writeFile([1], to: file)
    return file.appendingPathComponent("review.html")
  }

  func testRun_reportCannotBeWritten_exitsOneAndWritesNothing() throws {
    try merge.archive("run.zip", ["a": .seed(1)])
    let before = try merge.package()

    let verdict = merge.run(report: try unwritableReport())

    XCTAssertEqual(verdict.status, .writeFailed)
    XCTAssertEqual(verdict.problems, ["reportNotWritten"])
    XCTAssertEqual(verdict.conclusion.problems.map(\.kind), [.writeFailed])
    XCTAssertTrue(verdict.conclusion.stopsBeforeWriting)
    assertTreesEqual(try merge.package(), before)
  }

  func testRun_reportCannotBeWrittenWithKeepGoing_stillExitsOne() throws {
    try merge.archive("run.zip", ["a": .seed(1)])
    merge.options.keepGoing = true

    let verdict = merge.run(report: try unwritableReport())

    XCTAssertEqual(verdict.status, .writeFailed)
    XCTAssertFalse(merge.exists("a"))
  }

  func testRun_refusedSourceWithKeepGoing_appliesTheRestAndExitsThree() throws {
    try merge.archive("good.zip", ["a": .seed(1)])
    try merge.archive("bad.zip", ["evil\u{1b}[2J": .seed(2)])
    merge.options.keepGoing = true

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput)
    XCTAssertEqual(verdict.problems, ["refusedSource"])
    XCTAssertFalse(verdict.conclusion.stopsBeforeWriting)
    XCTAssertTrue(merge.exists("a"))
  }

  func testRun_controlCharactersInEntry_refusedNamingTheEscapedEntry() throws {
    let source = try merge.archive("run.zip", ["x\u{1b}[2J\n\u{7f}\u{9b}": .seed(1)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput)
    let message = try XCTUnwrap(verdict.conclusion.problems.first?.description)
    XCTAssertTrue(
      message.contains(
        "\(source.path): refused entry '\(merge.folder)/x\\x1b[2J\\x0a\\x7f\\x9b.png'"),
      message)
    XCTAssertTrue(message.contains("control characters"), message)
    XCTAssertFalse(verdict.summary.text().unicodeScalars.contains { $0.value == 0x1B })
    XCTAssertEqual(try merge.package(), [:])
  }

  func testRun_controlCharactersInManifestRecord_refused() throws {
    try run(verifying: "\(merge.folder)/b\u{85}.png")

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput)
    XCTAssertEqual(verdict.problems, ["refusedSource"])
    XCTAssertTrue(
      "\(verdict.conclusion.problems)".contains("'\(merge.folder)/b\\x85.png': a manifest record"),
      "\(verdict.conclusion.problems)")
  }

  func testRun_manifestRecordClimbingOut_refusedBeforeOrphansAreSought() throws {
    try run(verifying: "../outside/b.png")

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput)
    XCTAssertEqual(verdict.names(.orphan), [])
  }

  /// An up-to-date rerun lists the archive from its central directory instead of visiting
  /// every entry; the entry rules still hold there.
  func testRun_upToDateRerun_stillRefusesAPathThatAppearsTwice() throws {
    try merge.reference("a", .seed(1))
    try merge.archive("twice.zip", ["a": .seed(1)]) { $0.images.append($0.images[0]) }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput)
    XCTAssertEqual(verdict.problems, ["refusedSource"])
    XCTAssertTrue(
      "\(verdict.conclusion.problems)".contains("the path appears twice"),
      "\(verdict.conclusion.problems)")
  }

  func testRun_upToDateRerun_everythingUnchanged() throws {
    try merge.archive("run.zip", ["a": .seed(1), "b": .seed(2)])
    XCTAssertEqual(merge.run().outcomes, ["a": .added, "b": .added])

    let rerun = merge.run()

    XCTAssertEqual(rerun.status, .success)
    XCTAssertEqual(rerun.outcomes, ["a": .unchanged, "b": .unchanged])
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
    try merge.archive("run.zip", ["a": .seed(1), "b": .seed(2)])
    try merge.reference("a", bytes: lfsPointer(to: try Pixels.seed(3).png()))
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput)
    XCTAssertEqual(verdict.conclusion.problems, [.gitLFSPointer(path: merge.url("a").path)])
    XCTAssertEqual(verdict.refusedPaths, ["a"])
    assertTreesEqual(try merge.package(), before)
  }

  func testRun_gitLFSPointerForTheSameBytes_isUnchanged() throws {
    try merge.archive("run.zip", ["a": .seed(1)])
    try merge.reference("a", bytes: lfsPointer(to: try Pixels.seed(1).png()))
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["a": .unchanged])
    assertTreesEqual(try merge.package(), before)
  }
}
