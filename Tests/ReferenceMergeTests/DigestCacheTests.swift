import Foundation
import ReferenceArchive
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
      if !name.contains(DigestCache.fileName) && flags & O_DIRECTORY == 0 { reads.increment() }
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

  func testDigest_cacheFileOfTheOlderFormat_isHashedAgain() throws {
    let cache = package.appendingPathComponent(".build/\(DigestCache.fileName)")
    try cacheOneFile("aaaa", modified: 1_000_000_000)
    // The older format was text, a line per file: such a file, even with a line whose status
    // matches, is not read, so a wrong digest in it is never answered.
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

  func testJournal_ofAMergeThatNeverSaves_leavesNothingInTheBuildFolder() throws {
    // A merge killed before it saves: its journal of learned digests must not stay behind.
    let build = package.appendingPathComponent(".build")
    let destination = try Destination(root: package)
    let bytes = Array("learned".utf8)
    try destination.write(bytes, to: "a/b.png", digest: SHA256.hex(bytes))
    try setModificationTime(package.appendingPathComponent("a/b.png"), 1_000_000_000)
    let fresh = try Destination(root: package)
    XCTAssertEqual(fresh.pngSHA256("a/b.png"), SHA256.hex(bytes), "hashed, so learned")

    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: build.path), [])
    // And the journal still lands when the merge ends.
    fresh.saveDigests()
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: build.path), [DigestCache.fileName])
    let reads = Counter()
    let again = try Destination(root: package, calls: countingCalls(reads))
    XCTAssertEqual(again.pngSHA256("a/b.png"), SHA256.hex(bytes))
    XCTAssertEqual(reads.value, 0, "answered by the saved cache")
  }

  func testSave_removesTheNewCacheFilesOfKilledMerges_notARunningOnes() throws {
    // A merge killed while it wrote its new cache file left it behind under its temporary
    // name; a merge still running may be writing one now.
    let build = package.appendingPathComponent(".build")
    let killed = FileSystem.temporaryName(for: DigestCache.fileName)
      .replacingOccurrences(of: "-\(getpid())-", with: "-\(try deadProcessID())-")
    let running = FileSystem.temporaryName(for: DigestCache.fileName)
      .replacingOccurrences(of: "-\(getpid())-", with: "-1-")
    let unrelated = FileSystem.temporaryName(for: "other")
      .replacingOccurrences(of: "-\(getpid())-", with: "-\(try deadProcessID())-")
    for name in [killed, running, unrelated] {
      try Data(repeating: 7, count: 100).write(to: build.appendingPathComponent(name))
    }
    XCTAssertNotNil(FileSystem.writingProcess(ofTemporary: killed, for: DigestCache.fileName))
    XCTAssertNil(FileSystem.writingProcess(ofTemporary: unrelated, for: DigestCache.fileName))

    try cacheOneFile("saved", modified: 1_000_000_000)

    XCTAssertEqual(
      Set(try FileManager.default.contentsOfDirectory(atPath: build.path)),
      [DigestCache.fileName, running, unrelated])
  }

  /// The ID of a process that has ended (and was waited for), not yet reused.
  private func deadProcessID() throws -> pid_t {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    XCTAssertEqual(kill(process.processIdentifier, 0), -1)
    return process.processIdentifier
  }

  func testSave_fileLearnedAgain_keepsOnlyItsNewRecord() throws {
    let file = package.appendingPathComponent("a/b.png")
    let cache = package.appendingPathComponent(".build/\(DigestCache.fileName)")
    try cacheOneFile("aaaa", modified: 1_000_000_000)
    try Data("longer bytes".utf8).write(to: file)
    try setModificationTime(file, 1_000_000_001)
    let changed = try Destination(root: package)
    XCTAssertEqual(changed.pngSHA256("a/b.png"), SHA256.hex(Array("longer bytes".utf8)))
    changed.saveDigests()
    let reads = Counter()

    let records = try recordCount(cache)
    let digest = try Destination(root: package, calls: countingCalls(reads)).pngSHA256("a/b.png")

    XCTAssertEqual(records, 1, "the stale record is not written again")
    XCTAssertEqual(digest, SHA256.hex(Array("longer bytes".utf8)))
    XCTAssertEqual(reads.value, 0, "answered from the new record")
    XCTAssertEqual(try buildFolderNames(), [DigestCache.fileName], "no journal left behind")
  }

  private func recordCount(_ cache: URL) throws -> Int {
    let size = try XCTUnwrap(
      try FileManager.default.attributesOfItem(atPath: cache.path)[.size] as? Int)
    XCTAssertEqual((size - DigestCacheFile.headerSize) % DigestCacheFile.recordSize, 0)
    return (size - DigestCacheFile.headerSize) / DigestCacheFile.recordSize
  }

  private func buildFolderNames() throws -> [String] {
    try FileManager.default.contentsOfDirectory(
      atPath: package.appendingPathComponent(".build").path
    )
    .sorted()
  }

  /// Writes files named by `names` with their names as bytes, dated `modified`.
  private func writeFiles(_ names: [String], modified: Int, suffix: String = "") throws {
    for name in names {
      let file = package.appendingPathComponent("\(name).png")
      try Data((name + suffix).utf8).write(to: file)
      try setModificationTime(file, modified)
    }
  }

  func testSave_learnedInManyRuns_mergedWithTheStoredOnes_theLatestWins() throws {
    // 40 files cached, then a merge that learns 30 of them again (ten changed, then twenty
    // more, the ten again among them, changed twice) with runs of 7: the journal is sorted in
    // six runs, and a key learned in two runs is written once, the later one.
    let names = (0..<40).map { "file\($0)" }
    try writeFiles(names, modified: 1_000_000_000)
    let first = try Destination(root: package)
    for name in names { _ = first.pngSHA256("\(name).png") }
    first.saveDigests()
    try writeFiles(Array(names[0..<10]), modified: 1_000_000_001, suffix: " once")

    let handle = open(package.path, O_RDONLY | O_DIRECTORY)
    defer { close(handle) }
    let cache = try XCTUnwrap(DigestCache(root: handle, calls: .system, runLength: 7))
    let destination = try Destination(root: package)
    for name in names[0..<10] {
      let status = try XCTUnwrap(try destination.status("\(name).png"))
      XCTAssertNil(cache.digest("\(name).png", status: status), "changed since")
      cache.remember(
        "\(name).png", status: status, digest: SHA256Digest(of: Array("\(name) once".utf8)))
    }
    try writeFiles(Array(names[0..<10]), modified: 1_000_000_002, suffix: " twice")
    for name in names[0..<30] {
      let status = try XCTUnwrap(try destination.status("\(name).png"))
      let bytes = try Data(contentsOf: package.appendingPathComponent("\(name).png"))
      cache.remember("\(name).png", status: status, digest: SHA256Digest(of: Array(bytes)))
    }
    cache.save()
    let reads = Counter()
    let next = try Destination(root: package, calls: countingCalls(reads))
    let answers = names.map { next.pngSHA256("\($0).png") }

    XCTAssertEqual(
      try recordCount(package.appendingPathComponent(".build/\(DigestCache.fileName)")), 40)
    XCTAssertEqual(reads.value, 0, "every file answered by the cache")
    XCTAssertEqual(
      answers,
      names.enumerated().map { index, name in
        SHA256.hex(Array((index < 10 ? name + " twice" : name).utf8))
      })
  }

  func testSave_storedEntryAsNewAsItsFile_isNotCarried() throws {
    // b's entry was stored racy (its file as new as the cache): carried into a later file,
    // it would be trusted.
    try writeFiles(["a", "b"], modified: 1_000_000_000)
    let first = try Destination(root: package)
    _ = first.pngSHA256("a.png")
    _ = first.pngSHA256("b.png")
    first.saveDigests()
    let cache = package.appendingPathComponent(".build/\(DigestCache.fileName)")
    try setModificationTime(cache, 1_000_000_000)
    try writeFiles(["a"], modified: 1_000_000_001, suffix: " again")
    let merge = try Destination(root: package)
    _ = merge.pngSHA256("a.png")
    merge.saveDigests()
    let reads = Counter()

    let next = try Destination(root: package, calls: countingCalls(reads))
    XCTAssertEqual(next.pngSHA256("a.png"), SHA256.hex(Array("a again".utf8)))
    XCTAssertEqual(reads.value, 0, "a answered by the cache")
    XCTAssertEqual(next.pngSHA256("b.png"), SHA256.hex(Array("b".utf8)))

    XCTAssertEqual(reads.value, 1, "b hashed again")
    XCTAssertEqual(try recordCount(cache), 1)
  }

  func testSave_questionsAfterReadingTheSources_stillAnsweredByTheCache() throws {
    try cacheOneFile("aaaa", modified: 1_000_000_000)
    let reads = Counter()
    let merge = try Destination(root: package, calls: countingCalls(reads))

    let digests = (0..<3).map { _ in merge.pngSHA256("a/b.png") }

    XCTAssertEqual(digests, Array(repeating: SHA256.hex(Array("aaaa".utf8)), count: 3))
    XCTAssertEqual(reads.value, 0, "each question answered by the stored record")
  }

  /// A cache file of `count` records for keys 1, 3, 5, … (each with a made-up status), with
  /// `x.png`'s true record among them, dated after every file.
  private func writeCacheFile(count: Int, mangle: (inout [DigestCache.Entry]) -> Void = { _ in })
    throws -> String
  {
    let destination = try Destination(root: package)
    try destination.write(Array("x".utf8), to: "x.png", digest: SHA256.hex(Array("x".utf8)))
    try setModificationTime(package.appendingPathComponent("x.png"), 1_000_000_000)
    let status = try XCTUnwrap(try destination.status("x.png"))
    let digest = SHA256Digest(of: Array("x".utf8))
    let key = PathKey.of("x.png")
    var entries = (0..<count).map { index in
      DigestCache.Entry(
        key: UInt64(index) * 2 + 1, device: status.device, inode: UInt64(index) + 10_000_000,
        size: 1, modified: 1, digest: digest)
    }.filter { $0.key != key }
    entries.append(
      DigestCache.Entry(
        key: key, device: status.device, inode: status.inode, size: status.size,
        modified: status.modified, digest: digest))
    entries.sort { $0.key < $1.key }
    mangle(&entries)
    var bytes = DigestCacheFile.header
    var record = [UInt8](repeating: 0, count: DigestCacheFile.recordSize)
    for entry in entries {
      record.withUnsafeMutableBytes { DigestCacheFile.store(entry, in: $0, at: 0) }
      bytes += record
    }
    let cache = package.appendingPathComponent(".build/\(DigestCache.fileName)")
    try Data(bytes).write(to: cache)
    try setModificationTime(cache, 1_000_000_100)
    return digest.hex
  }

  func testLoad_cacheFileOfManyBlocksAndReads_everyRecordAnswers() throws {
    // 15,000 records: 469 blocks, and 17 reads of the file's keys at load.
    let digest = try writeCacheFile(count: 15_000)
    let reads = Counter()

    let answer = try Destination(root: package, calls: countingCalls(reads)).pngSHA256("x.png")

    XCTAssertEqual(answer, digest)
    XCTAssertEqual(reads.value, 0, "answered by the cache")
  }

  func testLoad_damagedCacheFile_isAnEmptyCache() throws {
    let damages: [(String, (inout [DigestCache.Entry]) -> Void)] = [
      ("out of order", { $0.swapAt(0, $0.count - 1) }),
      ("a key twice", { $0[1].key = $0[0].key }),
    ]
    for (damage, mangle) in damages {
      _ = try writeCacheFile(count: 100, mangle: mangle)
      let reads = Counter()

      _ = try Destination(root: package, calls: countingCalls(reads)).pngSHA256("x.png")

      XCTAssertEqual(reads.value, 1, "\(damage): the file is hashed")
    }
    let digest = try writeCacheFile(count: 100)
    let cache = package.appendingPathComponent(".build/\(DigestCache.fileName)")
    let handle = try FileHandle(forWritingTo: cache)
    try handle.truncate(
      atOffset: UInt64(DigestCacheFile.headerSize + 99 * DigestCacheFile.recordSize + 5))
    try handle.close()
    try setModificationTime(cache, 1_000_000_100)
    let reads = Counter()

    XCTAssertEqual(
      try Destination(root: package, calls: countingCalls(reads)).pngSHA256("x.png"), digest)
    XCTAssertEqual(reads.value, 1, "cut short: the file is hashed")
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
