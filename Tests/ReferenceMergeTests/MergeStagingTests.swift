import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceMerge

/// `MergeStaging`: entries staged from many threads are each found again by source and path,
/// and land with the status the digest cache needs.
final class MergeStagingTests: XCTestCase {
  private var package: URL!

  override func setUpWithError() throws {
    package = try makeTemporaryFolder(self).appendingPathComponent("package")
    try FileManager.default.createDirectory(
      at: package.appendingPathComponent(".build"), withIntermediateDirectories: true)
  }

  private func source(_ number: Int) -> MergeSource { Self.source(number) }

  private static func source(_ number: Int) -> MergeSource {
    MergeSource(ArchiveFile(url: URL(fileURLWithPath: "/runs/\(number).zip")))
  }

  /// Bytes of a size that depends on the entry, so a status kept for another file would not
  /// match the landed file's.
  private func bytes(source: Int, path: Int) -> [UInt8] { Self.bytes(source: source, path: path) }

  private static func bytes(source: Int, path: Int) -> [UInt8] {
    Array("source \(source) path \(path) ".utf8) + [UInt8](repeating: 7, count: path % 97)
  }

  func testStage_manyThreads_eachEntryLandsWithItsOwnBytesAndStatus() throws {
    let destination = try Destination(root: package)
    let staging = try MergeStaging(destination: destination)
    let (sources, paths) = (4, 600)
    // Every source stages every path: the same path from four sources is four entries.
    DispatchQueue.concurrentPerform(iterations: sources * paths) { index in
      let (source, path) = (index % sources, index / sources)
      staging.stage(
        Self.bytes(source: source, path: path), source: Self.source(source), path: "a/\(path).png")
    }

    // Each path from the source its number picks, in an order unlike the staging's.
    for path in (0..<paths).reversed() {
      let chosen = path % sources
      let expected = bytes(source: chosen, path: path)
      let moved = try staging.moveIntoPlace(
        source: source(chosen), path: "a/\(path).png", digest: SHA256Digest(of: expected))
      XCTAssertTrue(moved, "a/\(path).png")
      XCTAssertEqual(destination.read("a/\(path).png")?.bytes, expected, "a/\(path).png")
    }
    XCTAssertFalse(
      try staging.moveIntoPlace(source: source(0), path: "a/0.png", digest: SHA256Digest(of: [])),
      "an entry moved once is not found again")
    destination.saveDigests()
    staging.remove()

    // The cache vouches for every landed file, so each status was the file's own.
    let opened = Counter()
    var calls = FileCalls.system
    let openAt = calls.openAt
    calls.openAt = { folder, name, flags in
      if name.hasSuffix(".png") { opened.increment() }
      return openAt(folder, name, flags)
    }
    let next = try Destination(root: package, calls: calls)
    for path in 0..<paths {
      XCTAssertEqual(
        next.pngDigest("a/\(path).png"),
        SHA256Digest(of: bytes(source: path % sources, path: path)))
    }
    XCTAssertEqual(opened.value, 0, "every landed file answered by the digest cache")
  }

  /// Two paths of one source that share a key share a staged file's name: neither is found, so
  /// both are read again from their source, whichever was staged first.
  func testPathsSharingAKey_areBothLeftUnfound() throws {
    let (first, second) = PathKeyCollisionTests.colliding
    for order in [[first, second], [second, first]] {
      let destination = try Destination(root: package)
      let staging = try MergeStaging(destination: destination)
      for path in order { staging.stage(Array(path.utf8), source: source(1), path: path) }
      for path in [first, second] {
        XCTAssertFalse(
          try staging.moveIntoPlace(
            source: source(1), path: path, digest: SHA256Digest(of: Array(path.utf8))),
          "\(path), staged \(order)")
        XCTAssertNil(destination.read(path), path)
      }
      staging.remove()
    }
  }

  func testMoveIntoPlace_entryNeverStaged_isNotFound() throws {
    let staging = try MergeStaging(destination: try Destination(root: package))
    staging.stage([1, 2, 3], source: source(1), path: "a/x.png")

    XCTAssertFalse(
      try staging.moveIntoPlace(source: source(2), path: "a/x.png", digest: SHA256Digest(of: [])))
    XCTAssertFalse(
      try staging.moveIntoPlace(source: source(1), path: "a/y.png", digest: SHA256Digest(of: [])))
    XCTAssertTrue(
      try staging.moveIntoPlace(
        source: source(1), path: "a/x.png", digest: SHA256Digest(of: [1, 2, 3])))
    staging.remove()
  }
}
