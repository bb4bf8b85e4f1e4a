import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceMerge

/// The digest cache under `.build`: a rerun trusts an unchanged file without reading it, and
/// re-hashes a file whose time stamp is not older than the cache (git's racy rule).
final class DigestCacheTests: XCTestCase {
  private var package: URL!

  override func setUpWithError() throws {
    package = try makeTemporaryFolder(self).appendingPathComponent("package")
    try FileManager.default.createDirectory(
      at: package.appendingPathComponent(".build"), withIntermediateDirectories: true)
  }

  /// Calls that count the files opened other than the cache, to tell a cache hit from a hash.
  private func countingCalls(_ reads: Counter) -> FileCalls {
    var calls = FileCalls.system
    let openAt = calls.openAt
    calls.openAt = { folder, name, flags in
      if name != DigestCache.fileName && flags & O_DIRECTORY == 0 { reads.increment() }
      return openAt(folder, name, flags)
    }
    return calls
  }

  private func setModificationTime(_ url: URL, _ seconds: Int) throws {
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: TimeInterval(seconds))],
      ofItemAtPath: url.path)
  }

  /// Writes `a/b.png` through a destination, gives it a time stamp, and saves the cache.
  private func cacheOneFile(_ text: String, modified: Int) throws {
    let destination = try Destination(root: package)
    let bytes = Array(text.utf8)
    try destination.write(bytes, to: "a/b.png", digest: SHA256.hex(bytes))
    try setModificationTime(package.appendingPathComponent("a/b.png"), modified)
    XCTAssertEqual(destination.pngSHA256("a/b.png"), SHA256.hex(bytes))
    destination.saveDigests()
  }

  func testDigest_unchangedFileOlderThanTheCache_answeredWithoutReading() throws {
    // The second, a negative time stamp, as a file restored with its old times may have.
    for modified in [1_000_000_000, -1_000_000] {
      try cacheOneFile("first", modified: modified)
      let reads = Counter()

      let again = try Destination(root: package, calls: countingCalls(reads))
      let digest = again.pngSHA256("a/b.png")

      XCTAssertEqual(digest, SHA256.hex(Array("first".utf8)), "modified \(modified)")
      XCTAssertEqual(reads.value, 0, "only the cache file is read (modified \(modified))")
    }
  }

  func testDigest_fileAsNewAsTheCache_isHashedAgain() throws {
    let file = package.appendingPathComponent("a/b.png")
    let cache = package.appendingPathComponent(".build/\(DigestCache.fileName)")
    try cacheOneFile("aaaa", modified: 1_700_000_000)
    // Same size, same time stamp, same inode, and the cache written in the same tick: only the
    // racy rule tells this file apart from the one the cache saw.
    let handle = try FileHandle(forWritingTo: file)
    try handle.write(contentsOf: Data("bbbb".utf8))
    try handle.close()
    try setModificationTime(file, 1_700_000_000)
    try setModificationTime(cache, 1_700_000_000)

    let digest = try Destination(root: package).pngSHA256("a/b.png")

    XCTAssertEqual(digest, SHA256.hex(Array("bbbb".utf8)))
  }

  func testDigest_fileChangedSinceTheCache_isHashedAgain() throws {
    let file = package.appendingPathComponent("a/b.png")
    try cacheOneFile("aaaa", modified: 1_000_000_000)
    try Data("longer bytes".utf8).write(to: file)

    XCTAssertEqual(
      try Destination(root: package).pngSHA256("a/b.png"), SHA256.hex(Array("longer bytes".utf8)))
  }

  func testDigest_lineOfTheOlderFormat_isHashedAgain() throws {
    let cache = package.appendingPathComponent(".build/\(DigestCache.fileName)")
    try cacheOneFile("aaaa", modified: 1_000_000_000)
    // The older format ended each line with the path: such a line, even one whose status
    // matches, is not trusted, so a wrong digest in it is never answered.
    let status = try XCTUnwrap(try Destination(root: package).status("a/b.png"))
    let wrong = SHA256.hex(Array("not these bytes".utf8))
    try Data("\(status.device) \(status.inode) 4 \(status.modified) \(wrong) a/b.png\n".utf8)
      .write(to: cache)
    try setModificationTime(cache, 2_000_000_000)
    let reads = Counter()

    let digest = try Destination(root: package, calls: countingCalls(reads)).pngSHA256("a/b.png")

    XCTAssertEqual(digest, SHA256.hex(Array("aaaa".utf8)))
    XCTAssertEqual(reads.value, 1, "the file itself is read")
  }

  func testSave_fileLearnedAgain_keepsOnlyItsNewLine() throws {
    let file = package.appendingPathComponent("a/b.png")
    let cache = package.appendingPathComponent(".build/\(DigestCache.fileName)")
    try cacheOneFile("aaaa", modified: 1_000_000_000)
    try Data("longer bytes".utf8).write(to: file)
    try setModificationTime(file, 1_000_000_001)
    let changed = try Destination(root: package)
    XCTAssertEqual(changed.pngSHA256("a/b.png"), SHA256.hex(Array("longer bytes".utf8)))
    changed.saveDigests()
    let reads = Counter()

    let lines = try String(contentsOf: cache, encoding: .utf8).split(separator: "\n")
    let digest = try Destination(root: package, calls: countingCalls(reads)).pngSHA256("a/b.png")

    XCTAssertEqual(lines.count, 1, "the stale line is not written again: \(lines)")
    XCTAssertEqual(digest, SHA256.hex(Array("longer bytes".utf8)))
    XCTAssertEqual(reads.value, 0, "answered from the new line")
  }

  /// Three files cached, then a merge that reads its sources, lets the entries go
  /// (`settle`), and learns one file again afterwards.
  private func settleThenLearn(learnedBeforeSettling: Bool) throws -> [String: String] {
    let destination = try Destination(root: package)
    for name in ["a", "b", "c"] {
      let bytes = Array(name.utf8)
      try destination.write(bytes, to: "\(name).png", digest: SHA256.hex(bytes))
      try setModificationTime(package.appendingPathComponent("\(name).png"), 1_000_000_000)
      XCTAssertEqual(destination.pngSHA256("\(name).png"), SHA256.hex(bytes))
    }
    destination.saveDigests()
    try Data("c again".utf8).write(to: package.appendingPathComponent("c.png"))
    try setModificationTime(package.appendingPathComponent("c.png"), 1_000_000_001)
    if learnedBeforeSettling {
      try Data("b again".utf8).write(to: package.appendingPathComponent("b.png"))
      try setModificationTime(package.appendingPathComponent("b.png"), 1_000_000_002)
    }
    let merge = try Destination(root: package)
    XCTAssertEqual(merge.pngSHA256("a.png"), SHA256.hex(Array("a".utf8)))
    _ = merge.pngSHA256("b.png")

    merge.settleDigests()
    XCTAssertEqual(merge.pngSHA256("c.png"), SHA256.hex(Array("c again".utf8)))
    merge.saveDigests()

    var answers: [String: String] = [:]
    let reads = Counter()
    let next = try Destination(root: package, calls: countingCalls(reads))
    for name in ["a", "b", "c"] { answers[name] = next.pngSHA256("\(name).png") }
    XCTAssertEqual(reads.value, 0, "every file answered by the cache")
    return answers
  }

  func testSettle_nothingLearnedBefore_savedCacheCarriesTheFileAndTheNewLine() throws {
    let answers = try settleThenLearn(learnedBeforeSettling: false)

    XCTAssertEqual(answers["a"], SHA256.hex(Array("a".utf8)))
    XCTAssertEqual(answers["b"], SHA256.hex(Array("b".utf8)))
    XCTAssertEqual(answers["c"], SHA256.hex(Array("c again".utf8)), "not the stale line")
    let text = try String(
      contentsOf: package.appendingPathComponent(".build/\(DigestCache.fileName)"),
      encoding: .utf8)
    XCTAssertFalse(text.contains(SHA256.hex(Array("c".utf8))), "c's stale line is not carried")
  }

  func testSettle_learnedBefore_savedCacheCarriesTheEntriesAndTheNewLines() throws {
    let answers = try settleThenLearn(learnedBeforeSettling: true)

    XCTAssertEqual(answers["a"], SHA256.hex(Array("a".utf8)))
    XCTAssertEqual(answers["b"], SHA256.hex(Array("b again".utf8)))
    XCTAssertEqual(answers["c"], SHA256.hex(Array("c again".utf8)))
  }

  func testSettle_questionsAfterwards_areAnsweredByHashing() throws {
    try cacheOneFile("aaaa", modified: 1_000_000_000)
    let reads = Counter()
    let merge = try Destination(root: package, calls: countingCalls(reads))

    merge.settleDigests()
    let digest = merge.pngSHA256("a/b.png")

    XCTAssertEqual(digest, SHA256.hex(Array("aaaa".utf8)))
    XCTAssertEqual(reads.value, 1, "the entry was let go: the file is read")
  }

  func testLoad_cacheFileLongerThanOneRead_everyLineAnswers() throws {
    // 15,000 lines of about 85 bytes: the file spans two reads of 1 MiB, so a line is cut.
    let destination = try Destination(root: package)
    try destination.write(Array("x".utf8), to: "x.png", digest: SHA256.hex(Array("x".utf8)))
    try setModificationTime(package.appendingPathComponent("x.png"), 1_000_000_000)
    let status = try XCTUnwrap(try destination.status("x.png"))
    let cache = package.appendingPathComponent(".build/\(DigestCache.fileName)")
    let digest = SHA256.hex(Array("x".utf8))
    var text = ""
    for index in 0..<15_000 {
      text += "\(status.device) \(index + 10_000_000) 1 1 \(digest) \(String(index, radix: 16))\n"
    }
    let key = String(PathKey.of("x.png"), radix: 16)
    text += "\(status.device) \(status.inode) \(status.size) \(status.modified) \(digest) \(key)"
    XCTAssertGreaterThan(text.utf8.count, 1 << 20)
    try Data(text.utf8).write(to: cache)
    try setModificationTime(cache, 1_000_000_100)
    let reads = Counter()

    let answer = try Destination(root: package, calls: countingCalls(reads)).pngSHA256("x.png")

    XCTAssertEqual(answer, digest)
    XCTAssertEqual(reads.value, 0, "the last line, past the first read, without a line feed")
  }

  func testDigest_packageWithoutBuildFolder_keepsNoCache() throws {
    let bare = try makeTemporaryFolder(self)
    let destination = try Destination(root: bare)
    try destination.write([1], to: "a.png", digest: SHA256.hex([1]))
    destination.saveDigests()

    XCTAssertEqual(try snapshot(bare), ["a.png": .file([1])])
  }
}

final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  var value: Int {
    lock.lock()
    defer { lock.unlock() }
    return count
  }

  func increment() {
    lock.lock()
    count += 1
    lock.unlock()
  }
}
