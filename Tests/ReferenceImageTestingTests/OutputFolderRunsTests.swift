import Foundation
import ReferenceContracts
import XCTest

@testable import ReferenceImageTesting

/// The default output folder stays bounded: the names say each process's run, and a finishing
/// process removes all but the newest runs.
final class OutputFolderRunsTests: XCTestCase {
  private func stem(_ second: Int, pid: Int32, run: String) -> String {
    OutputFolderRuns.fileStem(
      startedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(second)), processID: pid,
      processRunID: "\(pid)abcdef0123", run: run)
  }

  func testEntry_parsesWhatFileStemWrites() throws {
    let name = stem(5, pid: 42, run: "host:swift-test:7:123") + ".zip"
    let entry = try XCTUnwrap(OutputFolderRuns.entry(name))
    XCTAssertEqual(String(entry.run), OutputFolderRuns.runToken("host:swift-test:7:123"))
    XCTAssertNil(OutputFolderRuns.entry("notes.zip"))
    XCTAssertNil(OutputFolderRuns.entry("ReferenceImages-20260101T000000.000Z-h-1-abc.zip"))
  }

  func testRemoveOldRuns_after100Runs_keepsTheNewest10_andSparesOwnRun() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "output-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent(".staging"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let other = folder.appendingPathComponent("notes.txt")
    try Data("mine".utf8).write(to: other)
    // 100 runs of three workers: an archive, a run record, and (for the oldest) a staging
    // folder a crash left.
    for run in 0..<100 {
      for worker in 0..<3 {
        let name = stem(run * 10 + worker, pid: Int32(1000 + worker), run: "run \(run)")
        let suffix = worker == 0 ? ".zip" : GenerationContract.runRecordSuffix
        try Data("x".utf8).write(to: folder.appendingPathComponent(name + suffix))
        if run == 0 && worker == 2 {
          try FileManager.default.createDirectory(
            at: folder.appendingPathComponent(".staging/\(name)"),
            withIntermediateDirectories: true)
        }
      }
    }
    let spared = stem(5, pid: 1000, run: "run 0")
    OutputFolderRuns.removeOldRuns(in: folder, keeping: 10, sparing: spared)
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .compactMap(OutputFolderRuns.entry)
    XCTAssertEqual(Set(left.map(\.run)).count, 11, "the newest 10 runs and the process's own")
    XCTAssertEqual(left.count, 33)
    XCTAssertTrue(
      left.contains { $0.run == Substring(OutputFolderRuns.runToken("run 99")) })
    XCTAssertFalse(
      left.contains { $0.run == Substring(OutputFolderRuns.runToken("run 50")) })
    XCTAssertTrue(FileManager.default.fileExists(atPath: other.path), "other files stay")
    XCTAssertTrue(
      try FileManager.default.contentsOfDirectory(
        atPath: folder.appendingPathComponent(".staging").path
      ).count == 1, "run 0's staging folder stays with its spared run")

    OutputFolderRuns.removeOldRuns(
      in: folder, keeping: 10, sparing: stem(995, pid: 1, run: "run 99"))
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(
        atPath: folder.appendingPathComponent(".staging").path
      ).count, 0, "a crashed old run's staging folder goes with its run")
  }
}
