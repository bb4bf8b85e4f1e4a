import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// Hostile and broken sources: each is refused naming the archive and the entry, the merge
/// ends with `ExitStatus.refusedInput`, and neither the destination nor anything beside it
/// changes by a single byte.
final class HostileSourceTests: XCTestCase {
  /// A destination with references in place, inside a parent folder that must stay empty of
  /// anything an escaping entry could write.
  private func makeDestination() throws -> (parent: URL, destination: URL) {
    let parent = try makeTemporaryFolder(self)
    let destination = parent.appendingPathComponent("package root")
    let folder = destination.appendingPathComponent("Tests/Hostile/__References__")
    try writeFile(
      try PNGEncoder().encode(try noiseImage(seed: 1)),
      to: folder.appendingPathComponent("kept.png"))
    try writeFile(
      Array("// swift-tools-version:6.0\n".utf8),
      to: destination.appendingPathComponent("Package.swift"))
    return (parent, destination)
  }

  /// Merges one fixture and checks the refusal: refused input, the source's problem names the
  /// archive (as given) and the entry, the destination and its parent are unchanged.
  private func assertRefused(
    _ fixture: String, entry: String, reason: String, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    try assertRefused(
      archive: hostileFixture(fixture), entry: entry, reason: reason, file: file, line: line)
  }

  /// `assertRefused(_:entry:reason:)` for an archive anywhere but in the destination's parent.
  private func assertRefused(
    archive: URL, entry: String, reason: String, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    let (parent, destination) = try makeDestination()
    let before = try snapshot(parent)
    let conclusion = session(.default, [archive], into: destination)
    XCTAssertEqual(conclusion.status, .refusedInput, file: file, line: line)
    XCTAssertEqual(conclusion.problems.map(\.caseName), ["refusedSource"], file: file, line: line)
    let refusal = conclusion.problems.first?.description ?? ""
    for part in [archive.path, entry, reason] {
      XCTAssertTrue(
        refusal.contains(part), "'\(part)' not in: \(refusal)", file: file, line: line)
    }
    XCTAssertTrue(conclusion.stopsBeforeWriting, file: file, line: line)
    assertTreesEqual(
      try snapshot(parent), before, archive.lastPathComponent, file: file, line: line)
  }

  func testMerge_pathTraversalEntry_refusedAndTreeUnchanged() throws {
    try assertRefused("traversal.zip", entry: "'../escaped.png'", reason: "climbs out with '..'")
  }

  func testMerge_traversalInsideAPath_refusedAndTreeUnchanged() throws {
    try assertRefused(
      "traversal-inner.zip", entry: "'a/../../escaped.png'", reason: "climbs out with '..'")
  }

  func testMerge_absolutePathEntry_refusedAndNothingWrittenThere() throws {
    let escaped = "/tmp/refimg-hostile-escaped.png"
    try? FileManager.default.removeItem(atPath: escaped)
    try assertRefused("absolute.zip", entry: "'\(escaped)'", reason: "the path is absolute")
    XCTAssertFalse(FileManager.default.fileExists(atPath: escaped))
  }

  func testMerge_symbolicLinkEntry_refusedAndTreeUnchanged() throws {
    try assertRefused(
      "symlink.zip", entry: "'Tests/Hostile/__References__/link.png'",
      reason: "it is a symbolic link")
  }

  func testMerge_duplicateEntry_refusedAndTreeUnchanged() throws {
    try assertRefused(
      "duplicate.zip", entry: "'Tests/Hostile/__References__/good.png'",
      reason: "the path appears twice")
  }

  func testMerge_nonPNGEntry_refusedAndTreeUnchanged() throws {
    try assertRefused(
      "not-png.zip", entry: "'Tests/Hostile/__References__/notes.txt'", reason: "not a PNG")
  }

  func testMerge_invalidPNGEntry_refusedAndTreeUnchanged() throws {
    try assertRefused(
      "invalid-png.zip", entry: "'Tests/Hostile/__References__/broken.png'",
      reason: "not a valid PNG")
  }

  func testMerge_truncatedArchive_refusedAsTruncatedAndTreeUnchanged() throws {
    // The central directory is gone, so no entry can be named: the archive is, as cut short.
    try assertRefused(
      "truncated.zip", entry: "truncated.zip is truncated (284 bytes; its end record is missing)",
      reason: ": download it again")
  }

  /// A file that is no zip at all, written outside the destination's parent.
  private func notAZip(_ bytes: [UInt8]) throws -> URL {
    let archive = try makeTemporaryFolder(self).appendingPathComponent("artifact.zip")
    try writeFile(bytes, to: archive)
    return archive
  }

  func testMerge_webPageSavedAsZip_refusedAsNotAZip() throws {
    let page = Array("\n<!DOCTYPE html><html><body>Sign in</body></html>\n".utf8)
    try assertRefused(
      archive: try notAZip(page),
      entry: "artifact.zip is not a zip archive (\(page.count) bytes, a web page or XML",
      reason: "): download it again")
  }

  func testMerge_emptyFileAsZip_refusedAsEmpty() throws {
    try assertRefused(
      archive: try notAZip([]), entry: "artifact.zip is not a zip archive (it is empty)",
      reason: "download it again")
  }

  func testMerge_binaryNonZip_refusedNamingItsFirstBytes() throws {
    try assertRefused(
      archive: try notAZip([0x1F, 0x8B, 0x08, 0x00] + Array(repeating: 7, count: 60)),
      entry: "artifact.zip is not a zip archive (64 bytes, gzip data)",
      reason: "download it again")
  }

  func testMerge_truncatedArchiveInsideAZipOfZips_refusedNamingTheInnerArchive() throws {
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add("Tests/Hostile/__References__/new.png", try noiseImage(seed: 4))
    let folder = try makeTemporaryFolder(self)
    let inner = folder.appendingPathComponent("worker.zip")
    try builder.write(to: inner)
    let whole = try Data(contentsOf: inner)
    let cut = whole.count - 30
    let outer = folder.appendingPathComponent("artifact.zip")
    try ZipWriter().write(
      [.init(path: "artifacts/worker.zip", contents: .bytes(Array(whole.prefix(cut))))], to: outer)
    try assertRefused(
      archive: outer,
      entry: "artifact.zip!artifacts/worker.zip is truncated (\(cut) bytes; its end record is",
      reason: "missing): download it again")
  }

  func testMerge_badCRC_refusedAndTreeUnchanged() throws {
    try assertRefused(
      "bad-crc.zip", entry: "'Tests/Hostile/__References__/other.png'", reason: "CRC")
  }

  func testMerge_hugeDeclaredSize_refusedBeforeReadingAndTreeUnchanged() throws {
    try assertRefused(
      "bomb-declared.zip", entry: "'Tests/Hostile/__References__/bomb.png'",
      reason: "declares 4294967280 bytes, over the 268435456-byte limit")
  }

  func testMerge_deflateBomb_refusedByRatioAndTreeUnchanged() throws {
    try assertRefused(
      "bomb-deflated.zip", entry: "'Tests/Hostile/__References__/bomb.png'",
      reason: "a zip bomb?")
  }

  func testMerge_zipOfZipsWithOneHostile_refusedNamingTheInnerArchive() throws {
    try assertRefused(
      "nested-hostile.zip",
      entry: "nested-hostile.zip!artifacts/worker-2.zip: refused entry "
        + "'../../escaped.png'", reason: "climbs out with '..'")
  }

  func testMerge_hostileAmongGoodSources_nothingWrittenAtAll() throws {
    let (parent, destination) = try makeDestination()
    let before = try snapshot(parent)
    var good = ArchiveBuilder(generatedAt: day(1))
    try good.add("Tests/Good/__References__/fine.png", try noiseImage(seed: 5))
    let goodArchive = parent.appendingPathComponent("good.zip")
    try good.write(to: goodArchive)
    let snapshotWithArchive = try snapshot(parent)

    let conclusion = session(
      .default, [goodArchive, hostileFixture("traversal.zip")], into: destination)

    XCTAssertEqual(conclusion.status, .refusedInput)
    XCTAssertEqual(conclusion.problems.map(\.caseName), ["refusedSource"])
    XCTAssertTrue(
      "\(conclusion.problems)".contains(hostileFixture("traversal.zip").path),
      "\(conclusion.problems)")
    assertTreesEqual(try snapshot(parent), snapshotWithArchive)
    XCTAssertNotEqual(before.count, snapshotWithArchive.count)
  }

  // MARK: Folder sources

  func testMerge_folderSourceHoldingASymlink_refusedAndTargetUntouched() throws {
    let (parent, destination) = try makeDestination()
    let staging = parent.appendingPathComponent("staging")
    let secret = parent.appendingPathComponent("secret.png")
    try writeFile(try PNGEncoder().encode(try noiseImage(seed: 9)), to: secret)
    let link = staging.appendingPathComponent("Tests/Hostile/__References__/kept.png")
    try FileManager.default.createDirectory(
      at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: secret)
    let before = try snapshot(parent)

    let conclusion = session(.default, [staging], into: destination)

    XCTAssertEqual(conclusion.status, .refusedInput)
    XCTAssertEqual(conclusion.problems.map(\.caseName), ["refusedSource"])
    guard
      case .refusedSource(.refusedEntry(let source, let entry, let reason)) =
        conclusion.problems.first
    else { return XCTFail("not a refused entry: \(conclusion.problems)") }
    XCTAssertEqual(source, staging.path + "/")
    XCTAssertEqual(entry, "Tests/Hostile/__References__/kept.png")
    XCTAssertTrue(reason.hasPrefix("it is a symbolic link"), reason)
    assertTreesEqual(try snapshot(parent), before)
  }

  func testMerge_folderSourceHoldingANonPNG_refusedNamingTheFile() throws {
    let (parent, destination) = try makeDestination()
    let staging = parent.appendingPathComponent("unpacked")
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add("Tests/Hostile/__References__/new.png", try noiseImage(seed: 3))
    try builder.writeFolder(to: staging)
    try writeFile(Array("#!/bin/sh\n".utf8), to: staging.appendingPathComponent("Tests/run.sh"))
    let before = try snapshot(parent)

    let conclusion = session(.default, [staging], into: destination)

    XCTAssertEqual(conclusion.status, .refusedInput)
    XCTAssertEqual(conclusion.problems.map(\.caseName), ["refusedSource"])
    guard case .refusedSource(.refusedEntry(let source, let entry, _)) = conclusion.problems.first
    else { return XCTFail("not a refused entry: \(conclusion.problems)") }
    XCTAssertEqual(source, staging.path + "/")
    XCTAssertEqual(entry, "Tests/run.sh")
    assertTreesEqual(try snapshot(parent), before)
  }

  // MARK: Limits, through the library

  /// Runs a session with `limits` on the given sources.
  private func session(
    _ limits: ArchiveLimits, _ sources: [URL], into destination: URL
  ) -> MergeSession.Conclusion {
    var options = MergeOptions()
    options.limits = limits
    return MergeSession(options: options, destination: destination, writesNothing: false)
      .run(sourcePaths: sources.map(\.path))
  }

  private func limits(
    entryBytes: Int = 1 << 20, totalBytes: Int = 1 << 30, ratio: Int = 100, entries: Int = 100
  ) -> ArchiveLimits {
    ArchiveLimits(
      maximumEntryBytes: entryBytes, maximumTotalBytes: totalBytes,
      maximumCompressionRatio: ratio, maximumEntryCount: entries)
  }

  /// An archive of a manifest and three 48x48 noise PNGs (about 9 KB each, several times the
  /// manifest), with the uncompressed size of the manifest and of each PNG.
  private func threeImageArchive(in parent: URL) throws -> (
    url: URL, manifestBytes: Int, pngBytes: [Int]
  ) {
    var builder = ArchiveBuilder(generatedAt: day(1))
    for index in 0..<3 {
      try builder.add(
        "Tests/Limits/__References__/image\(index).png",
        try noiseImage(seed: 100 + index, width: 48, height: 48))
    }
    let archive = parent.appendingPathComponent("limits.zip")
    try builder.write(to: archive)
    return (archive, try builder.manifest.encoded().count, builder.images.map(\.png.count))
  }

  func testSession_entryOverTheByteLimit_refusedNamingArchiveAndEntry() throws {
    let (parent, destination) = try makeDestination()
    let (archive, manifestBytes, pngBytes) = try threeImageArchive(in: parent)
    let limit = manifestBytes + 100
    XCTAssertLessThan(limit, pngBytes.min() ?? 0)
    let before = try snapshot(parent)

    let outcome = session(limits(entryBytes: limit), [archive], into: destination)

    XCTAssertEqual(outcome.status, .refusedInput)
    XCTAssertEqual(outcome.summary.errors.count, 1, "\(outcome.summary.errors)")
    let message = outcome.summary.errors.first ?? ""
    XCTAssertTrue(
      message.hasPrefix(
        "\(archive.path): entry 'Tests/Limits/__References__/image0.png': too large"), message)
    XCTAssertTrue(message.contains("over the \(limit)-byte limit"), message)
    assertTreesEqual(try snapshot(parent), before)
  }

  func testSession_entriesOverTheTotalLimit_refusedNamingTheEntryThatCrossedIt() throws {
    let (parent, destination) = try makeDestination()
    let (archive, manifestBytes, pngBytes) = try threeImageArchive(in: parent)
    let before = try snapshot(parent)

    let outcome = session(
      limits(totalBytes: manifestBytes + pngBytes[0] + pngBytes[1] + 10), [archive],
      into: destination)

    XCTAssertEqual(outcome.status, .refusedInput)
    let message = outcome.summary.errors.first ?? ""
    XCTAssertTrue(
      message.contains("\(archive.path): entry 'Tests/Limits/__References__/image2.png'"), message)
    XCTAssertTrue(message.contains("add up to more than"), message)
    assertTreesEqual(try snapshot(parent), before)
  }

  func testSession_tooManyEntries_refusedNamingTheArchive() throws {
    let (parent, destination) = try makeDestination()
    let archive = try threeImageArchive(in: parent).url
    let before = try snapshot(parent)

    let outcome = session(limits(entries: 3), [archive], into: destination)

    XCTAssertEqual(outcome.status, .refusedInput)
    XCTAssertEqual(
      outcome.summary.errors, ["\(archive.path): too large: more than 3 entries"])
    assertTreesEqual(try snapshot(parent), before)
  }

  func testSession_compressionRatioLimit_refusesEntriesBeyondTheSlack() throws {
    // Ratio 0 leaves only the 1 MiB slack: a 2 MiB stored entry crosses it.
    let (parent, destination) = try makeDestination()
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add(
      "Tests/Limits/__References__/big.png", try noiseImage(seed: 7, width: 800, height: 800))
    let archive = parent.appendingPathComponent("big.zip")
    try builder.write(to: archive)
    let before = try snapshot(parent)

    let outcome = session(limits(entryBytes: 1 << 30, ratio: 0), [archive], into: destination)

    XCTAssertEqual(outcome.status, .refusedInput)
    let message = outcome.summary.errors.first ?? ""
    XCTAssertTrue(
      message.contains("\(archive.path): entry 'Tests/Limits/__References__/big.png'"), message)
    XCTAssertTrue(message.contains("beyond the ratio 0 allowed"), message)
    assertTreesEqual(try snapshot(parent), before)
  }

  func testSession_zipOfZipsOverTheLimits_refusedNamingTheOuterArchive() throws {
    let (parent, destination) = try makeDestination()
    let inner = try threeImageArchive(in: parent).url
    let outer = parent.appendingPathComponent("artifacts.zip")
    try ZipWriter().write(
      [.init(path: "worker-1.zip", contents: .file(inner))], to: outer)
    let before = try snapshot(parent)

    let outcome = session(limits(entryBytes: 4000), [outer], into: destination)

    XCTAssertEqual(outcome.status, .refusedInput)
    let message = outcome.summary.errors.first ?? ""
    XCTAssertTrue(message.contains("\(outer.path): entry 'worker-1.zip': too large"), message)
    assertTreesEqual(try snapshot(parent), before)
  }
}
