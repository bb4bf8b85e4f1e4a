import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceMerge

final class ImageSpillTests: XCTestCase {
  /// Records of many sources, appended at once from many threads and more than the cache
  /// holds, read back in any order as they were given.
  func testRecordsOfManySources_readBackAsAppended() throws {
    let spill = try XCTUnwrap(ImageSpill.make())
    let sources = (0..<40).map { source in records(count: source * 37 % 500 + 1, seed: source) }
    let firsts = FirstRecords(count: sources.count)
    DispatchQueue.concurrentPerform(iterations: sources.count) { source in
      firsts.set(source, spill.append(sources[source]))
    }
    var wanted: [(number: Int, record: ImageSpill.Record)] = []
    for (source, records) in sources.enumerated() {
      let first = try XCTUnwrap(firsts.value(source))
      wanted += records.indices.map { (first + $0, records[$0]) }
    }
    XCTAssertGreaterThan(wanted.count, 64 * 64, "more records than the cache holds")
    var generator = SystemRandomNumberGenerator()
    for (number, record) in wanted + wanted.shuffled(using: &generator) {
      XCTAssertEqual(spill.record(number), record)
    }
  }

  /// A block read before the next source's records were written into it is read again.
  func testBlockCachedBeforeAnAppend_showsTheAppendedRecords() throws {
    let spill = try XCTUnwrap(ImageSpill.make())
    let first = records(count: 3, seed: 1)
    let second = records(count: 3, seed: 2)
    let firstAt = try XCTUnwrap(spill.append(first))
    XCTAssertEqual(spill.record(firstAt + 2), first[2])
    let secondAt = try XCTUnwrap(spill.append(second))
    XCTAssertEqual(spill.record(secondAt), second[0])
    XCTAssertEqual(spill.record(secondAt + 2), second[2])
  }

  /// A replaced digest is kept at its image's number, in any order, and a number never given
  /// one has none, even where the cache read its block before.
  func testReplacedDigests_readBackAtTheirNumbers_noneWhereNoneWasKept() throws {
    let spill = try XCTUnwrap(ImageSpill.make())
    let digests = records(count: 300, seed: 5).map(\.pixels)
    XCTAssertNil(spill.replaced(at: 10), "nothing kept yet")
    for number in stride(from: 299, through: 0, by: -3) {
      XCTAssertTrue(spill.keepReplaced(digests[number], at: number))
    }
    for number in 0..<300 {
      XCTAssertEqual(
        spill.replaced(at: number), number % 3 == 2 ? digests[number] : nil, "\(number)")
    }
    XCTAssertTrue(spill.keepReplaced(digests[10], at: 10))
    XCTAssertEqual(spill.replaced(at: 10), digests[10], "a block cached before is read again")
    XCTAssertNil(spill.replaced(at: 5_000), "past the end")
  }

  /// The file is unlinked as soon as it is made: a killed merge leaves nothing.
  func testSpillFile_isUnlinkedAtOnce() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let spill = try XCTUnwrap(ImageSpill.make(in: folder.path))
    XCTAssertNotNil(spill.append(records(count: 1, seed: 3)))
    XCTAssertTrue(spill.keepReplaced(records(count: 1, seed: 3)[0].pixels, at: 0))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
  }

  #if os(Linux)
    /// The files are closed on exec: a child process (a test run `reference-shards` starts)
    /// does not inherit them.
    func testSpillFiles_areClosedOnExec() throws {
      let folder = try makeTemporaryFolder(self)
      let spill = try XCTUnwrap(ImageSpill.make(in: folder.path))
      var found = 0
      for name in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
        guard let handle = Int32(name),
          let target = try? FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/self/fd/\(name)"),
          target.hasPrefix(folder.path)
        else { continue }
        found += 1
        XCTAssertNotEqual(fcntl(handle, F_GETFD) & FD_CLOEXEC, 0, target)
      }
      XCTAssertEqual(found, 2, "the records' file and the replaced digests'")
      withExtendedLifetime(spill) {}
    }
  #endif

  /// No temporary folder, or a full one: the records stay in memory, and read the same.
  func testNoFolderOrAFullDisk_keepsTheRecordsInMemory() throws {
    XCTAssertNil(ImageSpill.make(in: "/nonexistent-\(UUID().uuidString)"))
    var calls = FileCalls.system
    calls.writeAt = { _, _, _ in
      errno = ENOSPC
      return -1
    }
    let full = try XCTUnwrap(ImageSpill.make(calls: calls))
    let records = records(count: 2, seed: 4)
    XCTAssertNil(full.append(records))
    for spill in [nil, full] {
      guard case .held = PathPool.Records.spilled(records, to: spill) else {
        return XCTFail("spilled into a file that took nothing")
      }
      let pool = PathPool(["a.png", "b.png"], records: .spilled(records, to: spill))
      XCTAssertEqual(pool.record(1), records[1])
    }
  }

  private func records(count: Int, seed: Int) -> [ImageSpill.Record] {
    (0..<count).map {
      ImageSpill.Record(
        png: SHA256Digest(of: Array("png \(seed)-\($0)".utf8)),
        pixels: SHA256Digest(of: Array("pixels \(seed)-\($0)".utf8)), width: Int32($0 + 1),
        height: Int32(seed + 2))
    }
  }
}

/// Each source's first record, set from many threads.
private final class FirstRecords: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [Int?]

  init(count: Int) { values = Array(repeating: nil, count: count) }

  func set(_ index: Int, _ value: Int?) {
    lock.lock()
    defer { lock.unlock() }
    values[index] = value
  }

  func value(_ index: Int) -> Int? {
    lock.lock()
    defer { lock.unlock() }
    return values[index]
  }
}
