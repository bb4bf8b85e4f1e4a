import Foundation
import XCTest

/// Replays the fuzzers' seed corpora and every past fuzzer crash through the fuzz targets'
/// checks. A normal build compiles the targets as replay programs (`Scripts/fuzz` builds them
/// as libFuzzer binaries), so these run in every `Scripts/test`.
final class FuzzCorpusReplayTests: XCTestCase {
  private let checkout = FixturePackage.checkout

  func testPNGDecoderFuzzTarget_replaysSeedsAndPastCrashes() throws {
    let folders = [
      "Tests/ReferenceImageCoreTests/__Fixtures__/png",
      "Tests/ReferenceImageCoreTests/__Fixtures__/malformed",
      "Tests/ReferenceImageCoreTests/__Fixtures__/fuzz",
    ].map { checkout.appendingPathComponent($0).path }
    try replay("FuzzPNGDecoder", folders)
  }

  func testArchiveMergeFuzzTarget_replaysSeedsAndPastCrashes() throws {
    let folders = [
      "Tests/Fuzz/ArchiveMerge",
      "Tests/ReferenceMergeTests/__Fixtures__/hostile",
      "Tests/ReferenceMergeTests/__Fixtures__/fuzz",
    ].map { checkout.appendingPathComponent($0).path }
    try replay("FuzzArchiveMerge", folders)
  }

  func testArchiveMergeSeeds_areWhatTheGeneratorWrites() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "FuzzSeeds-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try runProcess(
      try builtProgram("FuzzArchiveMerge").path, ["--write-seeds", folder.path])
    XCTAssertEqual(run.status, 0, run.all)
    let committed = checkout.appendingPathComponent("Tests/Fuzz/ArchiveMerge")
    let names = try FileManager.default.contentsOfDirectory(atPath: committed.path).sorted()
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), names)
    for name in names {
      XCTAssertEqual(
        try Data(contentsOf: folder.appendingPathComponent(name)),
        try Data(contentsOf: committed.appendingPathComponent(name)),
        "\(name): regenerate with FuzzArchiveMerge --write-seeds Tests/Fuzz/ArchiveMerge")
    }
  }

  private func replay(_ program: String, _ folders: [String]) throws {
    let existing = folders.filter { FileManager.default.fileExists(atPath: $0) }
    let run = try runProcess(try builtProgram(program).path, existing)
    XCTAssertEqual(run.status, 0, run.all)
    let count = try XCTUnwrap(
      run.output.firstMatch(of: /(\d+) inputs replayed, no failure/), run.all)
    XCTAssertGreaterThan(Int(count.1) ?? 0, 0, run.all)
  }

  /// An executable built beside this test binary (`swift build --build-tests` builds them all).
  private func builtProgram(_ name: String) throws -> URL {
    let merge = try mergeRefsBinary()
    let url = merge.deletingLastPathComponent().appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: url.path) else {
      throw FixtureError(message: "\(name) not found beside \(merge.path); run swift build first")
    }
    return url
  }
}
