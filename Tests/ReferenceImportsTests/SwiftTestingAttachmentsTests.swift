import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImports
import ReferenceMerge
import TestSupport
import XCTest

/// Swift Testing `--attachments-path` folders with their event stream. The records are written
/// as Swift 6.3.1's `swift test --event-stream-output-path` writes them (version "6.3.0", the
/// default, and version 0, which adds `_preferredName` and `_testCase`); the real run is in
/// `SwiftTestingAttachmentsEndToEndTests`.
final class SwiftTestingAttachmentsTests: XCTestCase {
  private let bars = "Tests/ChartTests/__References__/Chart/bars.png"
  private let test = "ChartTests.Chart/bars()/ChartTests.swift:7:4"

  /// A `valueAttached` record as the CI machine wrote it: the path is that machine's.
  private func record(_ file: String, test: String, version0Case: String? = nil) -> String {
    let path = "/home/runner/work/app/.build/attachments/\(file)"
    guard let version0Case else {
      return #"{"kind": "event", "payload": {"attachment": {"path": "\#(path)"}, "#
        + #""instant": {"absolute": 20965.9, "since1970": 1795775826.1}, "kind": "valueAttached", "#
        + #""messages": [{"symbol": "_attachment", "text": "Attached '\#(file)' to bars()."}], "#
        + #""testID": "\#(test)"}, "version": "6.3.0"}"#
    }
    return #"{"kind":"event","payload":{"_testCase":{"displayName":"\#(version0Case)","id":"x"},"#
      + #""attachment":{"_preferredName":"\#(file)","path":"\#(path)"},"instant":{"absolute":1,"#
      + #""since1970":1},"kind":"valueAttached","messages":[],"testID":"\#(test)"},"version":0}"#
  }

  private let testRecord =
    #"{"kind": "test", "payload": {"id": "ChartTests.Chart", "kind": "suite", "name": "Chart"}, "#
    + #""version": "6.3.0"}"#

  private func name(_ path: String, _ role: FailureAttachmentName.Role, case label: String? = nil)
    -> String
  {
    FailureAttachmentName(referencePath: path, caseSuffix: label, role: role).fileName
  }

  /// A folder with the files and a stream of the records.
  private func folder(
    _ files: [String: [UInt8]], records: [String], in root: URL
  ) throws -> URL {
    let folder = root.appendingPathComponent("attachments")
    for (file, bytes) in files { try writeFile(bytes, to: folder.appendingPathComponent(file)) }
    try writeFile(
      Array(([testRecord] + records).joined(separator: "\n").utf8),
      to: folder.appendingPathComponent("events.jsonl"))
    return folder
  }

  func testActualRender_landsAtItsReferencePath_withItsTest_otherImagesCounted() throws {
    let root = try makeTemporaryFolder(self)
    let actual = name(bars, .actual)
    let attachments = try folder(
      [
        actual: try samplePNG(1), name(bars, .reference): try samplePNG(2),
        name(bars, .difference): try samplePNG(3), "screenshot.png": try samplePNG(4),
        "stray.png": try samplePNG(5),
      ],
      records: [
        record(actual, test: test), record(name(bars, .reference), test: test),
        record(name(bars, .difference), test: test), record("screenshot.png", test: test),
      ], in: root)
    let sources = try MergeSource.expand(attachments.path, destination: root)
    XCTAssertEqual(sources.count, 1)
    guard let source = sources[0].kind as? SwiftTestingAttachmentsSource,
      case .images(let images) = source.content
    else { return XCTFail("\(sources)") }
    XCTAssertEqual(images.map(\.path), [bars])
    XCTAssertEqual(images.first?.attachment.provenance.test, "ChartTests.Chart/bars()")
    XCTAssertEqual(images.first?.attachment.payload, .file(name: actual))
    let notes = source.notLanded.joined(separator: "\n")
    XCTAssertTrue(
      notes.contains(
        "images that are not references, not landed: 1 difference images of failed "
          + "comparisons, 1 reference images of failed comparisons"), notes)
    XCTAssertTrue(
      notes.contains("screenshot.png (ChartTests.Chart/bars()): not a failure image"), notes)
    XCTAssertTrue(notes.contains("stray.png: no valueAttached record"), notes)
  }

  /// Stream version 0 says the case; the repeated name Swift Testing made unique still lands
  /// at its path, and two renders of one path are two sources (a conflict when they differ).
  func testVersion0Case_andUniquedRepeats_areDistinctRenders() throws {
    let root = try makeTemporaryFolder(self)
    let actual = name(bars, .actual, case: "[n=1]")
    let dot = actual.firstIndex(of: ".")!
    let repeated = String(actual[..<dot] + "-qjulixsck732" + actual[dot...])
    let attachments = try folder(
      [actual: try samplePNG(1), repeated: try samplePNG(2)],
      records: [
        record(actual, test: test, version0Case: "1"),
        record(repeated, test: test, version0Case: "1"),
      ], in: root)
    let sources = try MergeSource.expand(attachments.path, destination: root)
    let placed = sources.compactMap { source -> ImportedSource.PlacedImage? in
      guard let imported = source.kind as? SwiftTestingAttachmentsSource,
        case .images(let images) = imported.content
      else { return nil }
      return images.first
    }
    XCTAssertEqual(placed.map(\.path), [bars, bars])
    XCTAssertEqual(placed.map(\.attachment.provenance.arguments), [["1"], ["1"]])
    let run = try mergeRefs(["--dry-run", attachments.path, root.path])
    XCTAssertEqual(run.exitStatus, .conflicts, run.all)
    XCTAssertTrue(run.all.contains("ChartTests.Chart/bars()"), run.all)
  }

  /// An archive of this package attached as a zip is a source like the zip on disk.
  func testAttachedArchive_isASourceWithItsManifest() throws {
    let root = try makeTemporaryFolder(self)
    let archive = try coordinatorArchive([(bars, try samplePNG(6))], in: root)
    let attachments = try folder(
      ["run.zip": archive], records: [record("run.zip", test: test)], in: root)
    let sources = try MergeSource.expand(attachments.path, destination: root)
    guard let source = sources.first?.kind as? SwiftTestingAttachmentsSource,
      case .archive(let attachment) = source.content
    else { return XCTFail("\(sources)") }
    XCTAssertEqual(attachment.provenance.test, "ChartTests.Chart/bars()")
    let run = try mergeRefs([attachments.path, root.path])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    XCTAssertEqual(
      Array(try Data(contentsOf: root.appendingPathComponent(bars))), try samplePNG(6))
  }

  func testRecordNamingAFileTheFolderLacks_isRefusedByLine() throws {
    let root = try makeTemporaryFolder(self)
    let attachments = try folder([:], records: [record(name(bars, .actual), test: test)], in: root)
    XCTAssertThrowsError(try MergeSource.expand(attachments.path, destination: root)) { error in
      let text = "\(error)"
      XCTAssertTrue(text.contains("events.jsonl line 2"), text)
      XCTAssertTrue(text.contains("the stream names a file the folder does not hold"), text)
    }
  }

  func testAPathThatClimbs_isListedNotLanded_andNothingIsWritten() throws {
    let root = try makeTemporaryFolder(self)
    let climbing = name("../../outside.png", .actual)
    let attachments = try folder(
      [climbing: try samplePNG(1)], records: [record(climbing, test: test)], in: root)
    let package = root.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    let run = try mergeRefs([attachments.path, package.path])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    XCTAssertTrue(run.all.contains("is refused: the path climbs out with '..'"), run.all)
    XCTAssertEqual(try contents(of: package), [:])
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: root.appendingPathComponent("outside.png").path))
  }

  /// Without a stream the files say no test: the folder is refused, naming a file and the
  /// command that writes the stream; a folder of other PNGs is not taken for one.
  func testFailureImagesWithoutAStream_areRefusedWithTheCommand() throws {
    let root = try makeTemporaryFolder(self)
    let attachments = root.appendingPathComponent("attachments")
    try writeFile(try samplePNG(1), to: attachments.appendingPathComponent(name(bars, .actual)))
    let run = try mergeRefs([attachments.path, root.path])
    XCTAssertEqual(run.exitStatus, .refusedInput, run.all)
    XCTAssertTrue(run.all.contains(name(bars, .actual)), run.all)
    XCTAssertTrue(
      run.all.contains(
        "swift test --attachments-path \(attachments.path) --event-stream-output-path "
          + "\(attachments.path)/events.jsonl"), run.all)
    XCTAssertEqual(SwiftTestingAttachments.recognize(root), .unrelated)
  }

  /// The folder holds the reference the failed comparison used: its render lands only while
  /// the destination still holds those pixels, as the run's archive does; otherwise it is
  /// refused with the archive's sentence and exit status, nothing written.
  func testStaleRender_referenceChangedSinceTheRun_isRefusedAsTheArchiveIs() throws {
    let root = try makeTemporaryFolder(self)
    let actual = name(bars, .actual)
    let attachments = try folder(
      [
        actual: try samplePNG(1), name(bars, .reference): try samplePNG(2),
        name(bars, .difference): try samplePNG(3),
      ],
      records: [
        record(actual, test: test), record(name(bars, .reference), test: test),
        record(name(bars, .difference), test: test),
      ], in: root)
    let package = root.appendingPathComponent("package")
    let reference = package.appendingPathComponent(bars)
    // Changed since the run: another commit landed other pixels.
    try writeFile(try samplePNG(4), to: reference)
    let before = try contents(of: package)
    let stale = try mergeRefs([attachments.path, package.path])
    XCTAssertEqual(stale.exitStatus, .refusedInput, stale.all)
    XCTAssertTrue(
      stale.all.contains("\(bars) changed since the run compared its render with it"), stale.all)
    XCTAssertEqual(try contents(of: package), before, "nothing written")

    // Gone since the run: refused too.
    try FileManager.default.removeItem(at: reference)
    let gone = try mergeRefs([attachments.path, package.path])
    XCTAssertEqual(gone.exitStatus, .refusedInput, gone.all)
    XCTAssertTrue(gone.all.contains("now none: the reference is gone"), gone.all)

    // The reference the run compared with: the render lands.
    try writeFile(try samplePNG(2), to: reference)
    let current = try mergeRefs([attachments.path, package.path])
    XCTAssertEqual(current.exitStatus, .success, current.all)
    XCTAssertEqual(Array(try Data(contentsOf: reference)), try samplePNG(1))
  }

  /// A render attached without a reference was compared with none: a reference that appeared
  /// since is not overwritten.
  func testRenderOfAMissingReference_referenceAddedSince_isRefused() throws {
    let root = try makeTemporaryFolder(self)
    let actual = name(bars, .actual)
    let attachments = try folder(
      [actual: try samplePNG(1)], records: [record(actual, test: test)], in: root)
    let package = root.appendingPathComponent("package")
    try writeFile(try samplePNG(4), to: package.appendingPathComponent(bars))
    let run = try mergeRefs([attachments.path, package.path])
    XCTAssertEqual(run.exitStatus, .refusedInput, run.all)
    XCTAssertTrue(run.all.contains("compared with pixels none: there was no reference"), run.all)
    XCTAssertEqual(
      Array(try Data(contentsOf: package.appendingPathComponent(bars))), try samplePNG(4))
  }

  /// What does not land is listed in full in `--json` and `--verbose`; the warning (a log
  /// line, an annotation, a job summary bullet) shows the first entries and the count.
  func testNotLandedList_isBoundedInTheWarning_completeInVerboseAndJSON() throws {
    let root = try makeTemporaryFolder(self)
    let actual = name(bars, .actual)
    var files = [actual: try samplePNG(1)]
    var records = [record(actual, test: test)]
    for index in 0..<30 {
      let screenshot = String(format: "screenshot-%02d.png", index)
      files[screenshot] = try samplePNG(UInt8(index))
      records.append(record(screenshot, test: test))
    }
    let attachments = try folder(files, records: records, in: root)
    let package = root.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    let listed = (0..<30).map { String(format: "screenshot-%02d.png", $0) }

    let plain = try mergeRefs(["--dry-run", attachments.path, package.path])
    XCTAssertEqual(plain.exitStatus, .success, plain.all)
    let warning = try XCTUnwrap(
      plain.all.components(separatedBy: "warning: ").dropFirst().first { $0.contains("not landed") }
    )
    XCTAssertTrue(warning.contains("not landed (30):"), warning)
    XCTAssertEqual(listed.filter { warning.contains($0) }.count, MergeSummary.listLimit, warning)
    XCTAssertTrue(warning.contains("… and 10 more (--json or --verbose lists them)"), warning)

    let verbose = try mergeRefs(["--dry-run", "--verbose", attachments.path, package.path])
    XCTAssertEqual(listed.filter { verbose.output.contains($0) }, listed, verbose.all)

    let json = try mergeRefs(["--dry-run", "--json", attachments.path, package.path])
    let object = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
    let reasons = (object["sources"] as? [[String: Any]] ?? []).compactMap {
      $0["incompleteReason"] as? String
    }.joined()
    XCTAssertEqual(listed.filter { reasons.contains($0) }, listed, reasons)
  }
}
