import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import ReferenceShards
import TestSupport
import XCTest

final class ShardRecordTests: XCTestCase {
  func testRecord_roundTripsThroughItsFile() throws {
    let folder = try makeTemporaryFolder(self)
    let record = ShardRecord(
      commit: "abc", index: 1, count: 2, replicas: 2, listingSHA256: "d",
      planned: ["M.a", "M.b()"],
      ran: [.init(test: "M.a", seconds: 0.25, count: 1)],
      startedAt: Date(timeIntervalSince1970: 1_800_000_000),
      endedAt: Date(timeIntervalSince1970: 1_800_000_060), swiftTestStatus: 0,
      archives: [.init(name: "x.zip", sha256: "e3b0", images: 2)],
      events: [.init(name: "batch-0.jsonl", sha256: "a1b2")], skipped: ["M.b()"])
    let file = folder.appendingPathComponent(ShardRecord.fileName)
    try record.encoded().write(to: file)
    XCTAssertEqual(try ShardRecord.read(from: file), record)
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: record.encoded()) as? [String: Any])
    XCTAssertEqual(
      Set(json.keys),
      [
        "formatVersion", "commit", "index", "count", "replicas", "listingSHA256", "planned",
        "ran", "startedAt", "endedAt", "swiftTestStatus", "archives", "events", "skipped",
        "platform",
      ])
  }

  func testRecord_notARecord_namesTheFile() throws {
    let file = try makeTemporaryFolder(self).appendingPathComponent(ShardRecord.fileName)
    try Data("{}".utf8).write(to: file)
    XCTAssertThrowsError(try ShardRecord.read(from: file)) { error in
      XCTAssertTrue("\(error)".contains(file.path), "\(error)")
    }
  }

  func testFold_sumsSecondsAndCountsRuns() {
    let runs = [
      ArchiveRun(test: "M.b", seconds: 1), ArchiveRun(test: "M.a", seconds: 2),
      ArchiveRun(test: "M.b", seconds: 0.5),
    ]
    XCTAssertEqual(
      ShardRecord.fold(runs),
      [.init(test: "M.a", seconds: 2, count: 1), .init(test: "M.b", seconds: 1.5, count: 2)])
  }

  func testTimings_combining_keepsTheLongerAndWritesSortedKeys() throws {
    // The longer duration of M.b comes first and of M.c last, so neither "first" nor "last"
    // would pass for "longer"; four keys make a sorted order by chance unlikely (1 in 24).
    let records = [
      record(ran: [("M.d", 1), ("M.b", 3), ("M.c", 1)]),
      record(ran: [("M.b", 1), ("M.a", 2), ("M.c", 4)]),
    ]
    let timings = TestTimings.combining(records)
    XCTAssertEqual(timings.tests, ["M.a": 2, "M.b": 3, "M.c": 4, "M.d": 1])
    let text = String(decoding: timings.encoded(), as: UTF8.self)
    let positions = try ["M.a", "M.b", "M.c", "M.d"].map {
      try XCTUnwrap(text.range(of: $0)).lowerBound
    }
    XCTAssertEqual(positions, positions.sorted(), text)
    XCTAssertTrue(text.contains("\"formatVersion\" : 1"), text)
  }

  func testTimings_read_refusesANegativeDuration() throws {
    let file = try makeTemporaryFolder(self).appendingPathComponent("t.json")
    try Data(#"{"formatVersion":1,"tests":{"M.a":-1}}"#.utf8).write(to: file)
    XCTAssertThrowsError(try TestTimings.read(from: file)) { error in
      XCTAssertTrue("\(error)".contains("M.a"), "\(error)")
    }
  }

  func testEventStream_testsWithSourceLocations_timedOncePerRun() {
    let lines = [
      #"{"kind":"test","payload":{"id":"M.param(n:)/F.swift:7:2","kind":"function"}}"#,
      event("testStarted", "M.Outer", 1.0),
      event("testStarted", "M.param(n:)/F.swift:7:2", 1.0),
      event("testCaseStarted", "M.param(n:)/F.swift:7:2", 1.1),
      event("testCaseEnded", "M.param(n:)/F.swift:7:2", 1.2),
      event("testEnded", "M.param(n:)/F.swift:7:2", 1.5),
      event("testStarted", "M.Outer/Inner/deep()/F.swift:9:4", 2.0),
      event("testEnded", "M.Outer/Inner/deep()/F.swift:9:4", 2.25),
      event("testSkipped", "M.skipped()/F.swift:12:2", 3.0),
      event("testEnded", "M.Outer", 3.0),
      "not json",
    ]
    let runs = EventStream.testRuns(in: Data(lines.joined(separator: "\n").utf8))
    XCTAssertEqual(
      runs,
      [
        ArchiveRun(test: "M.param(n:)", seconds: 0.5),
        ArchiveRun(test: "M.Outer/Inner/deep()", seconds: 0.25),
        ArchiveRun(test: "M.skipped()", seconds: 0),
      ])
  }

  func testEventStream_issueRecorded_failsItsTest_aKnownIssueDoesNot() {
    let issue = { (id: String, known: Bool) in
      #"{"kind":"event","payload":{"kind":"issueRecorded","testID":"\#(id)","issue":{"isKnown":\#(known)},"instant":{"absolute":1}}}"#
    }
    let lines = [
      event("testStarted", "M.fails()/F.swift:3:2", 1.0),
      issue("M.fails()/F.swift:3:2", false),
      issue("M.fails()/F.swift:3:2", false),
      issue("M.known()/G.swift:8:2", true),
      event("testEnded", "M.fails()/F.swift:3:2", 2.0),
    ]
    let results = EventStream.results(in: Data(lines.joined(separator: "\n").utf8))
    XCTAssertEqual(results.failed, ["M.fails()"])
    XCTAssertEqual(results.failedFiles, ["M.fails()": "F.swift"])
  }

  func testEventStream_listingName_dropsOnlyASourceLocation() {
    XCTAssertEqual(EventStream.listingName(ofTestID: "M.f()/F.swift:1:2"), "M.f()")
    XCTAssertEqual(EventStream.listingName(ofTestID: "M.S/f()"), "M.S/f()")
    XCTAssertEqual(EventStream.listingName(ofTestID: "M.S"), "M.S")
  }

  /// merge-refs finds a shard folder's archives by the names `reference-shards run` writes.
  func testMergeSource_shardFolder_expandsToItsArchivesNotTheRecord() throws {
    let folder = try makeTemporaryFolder(self)
    let archives = folder.appendingPathComponent(ShardRecord.archivesFolderName)
    try FileManager.default.createDirectory(at: archives, withIntermediateDirectories: true)
    try Data("{}".utf8).write(to: folder.appendingPathComponent(ShardRecord.fileName))
    XCTAssertEqual(try MergeSource.expand(folder.path), [], "a shard that stored nothing")
    try ZipWriter().write(
      [.init(path: "a.png", contents: .bytes([1]))], to: archives.appendingPathComponent("w.zip"))
    XCTAssertEqual(
      try MergeSource.expand(folder.path).map(\.description),
      [archives.appendingPathComponent("w.zip").path])
  }

  /// A fleet's merge holds every shard's record and evidence: the tests, archives and digests
  /// they both name are one string each.
  func testRecords_withEvidence_shareTheStringsRecordAndEvidenceBothName() throws {
    let folder = try makeTemporaryFolder(self)
    let test = "Module.SuiteOfTests/testSomething()"
    let stream = Data(
      [event("testStarted", test, 1), event("testEnded", test, 2)].joined(separator: "\n").utf8)
    let events = folder.appendingPathComponent(ShardRecord.eventsFolderName)
    try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
    let streamName = "swift-testing-events-of-shard-0.jsonl"
    try stream.write(to: events.appendingPathComponent(streamName))
    var record = record(ran: [(test, 1)])
    record.events = [.init(name: streamName, sha256: SHA256.hex(Array(stream)))]
    try record.encoded().write(to: folder.appendingPathComponent(ShardRecord.fileName))

    let (sources, problems) = ShardFolder.records(in: [folder.path], readingEvidence: true)

    XCTAssertEqual(problems.count, 0, "\(problems)")
    let read = try XCTUnwrap(sources.first)
    let evidence = try XCTUnwrap(read.evidence)
    XCTAssertEqual(evidence.events, read.record.events)
    XCTAssertEqual(evidence.runs.map(\.test), [test])
    func storage(_ string: String) -> UnsafeRawPointer? {
      string.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }
    let name = storage(read.record.planned[0])
    XCTAssertNotNil(name)
    XCTAssertEqual(storage(read.record.ran[0].test), name)
    XCTAssertEqual(storage(evidence.runs[0].test), name)
    XCTAssertEqual(storage(evidence.events[0].name), storage(read.record.events[0].name))
    XCTAssertEqual(storage(evidence.events[0].sha256), storage(read.record.events[0].sha256))
  }

  private func event(_ kind: String, _ id: String, _ instant: Double) -> String {
    #"{"kind":"event","payload":{"kind":"\#(kind)","testID":"\#(id)","instant":{"absolute":\#(instant)}}}"#
  }

  private func record(ran: [(String, Double)]) -> ShardRecord {
    ShardRecord(
      commit: "c", index: 0, count: 1, listingSHA256: "", planned: ran.map(\.0),
      ran: ran.map { .init(test: $0.0, seconds: $0.1, count: 1) }, startedAt: Date(),
      endedAt: Date(), swiftTestStatus: 0, archives: [])
  }
}
