import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceMerge

final class DigestSpillTests: XCTestCase {
  /// Pairs of many sources, appended at once from many threads and more than the cache holds,
  /// read back in any order as they were given.
  func testPairsOfManySources_readBackAsAppended() throws {
    let spill = try XCTUnwrap(DigestSpill.make())
    let sources = (0..<40).map { source in digests(count: 2 * (source * 37 % 500 + 1), seed: source)
    }
    let firsts = FirstPairs(count: sources.count)
    DispatchQueue.concurrentPerform(iterations: sources.count) { source in
      firsts.set(source, spill.append(sources[source]))
    }
    var wanted: [(pair: Int, png: SHA256Digest, pixels: SHA256Digest)] = []
    for (source, digests) in sources.enumerated() {
      let first = try XCTUnwrap(firsts.value(source))
      for pair in 0..<digests.count / 2 {
        wanted.append((first + pair, digests[2 * pair], digests[2 * pair + 1]))
      }
    }
    XCTAssertGreaterThan(wanted.count, 64 * 64, "more pairs than the cache holds")
    var generator = SystemRandomNumberGenerator()
    for (pair, png, pixels) in wanted + wanted.shuffled(using: &generator) {
      let read = spill.pair(pair)
      XCTAssertEqual(read.png, png)
      XCTAssertEqual(read.pixels, pixels)
    }
  }

  /// A block read before the next source's pairs were written into it is read again.
  func testBlockCachedBeforeAnAppend_showsTheAppendedPairs() throws {
    let spill = try XCTUnwrap(DigestSpill.make())
    let first = digests(count: 6, seed: 1)
    let second = digests(count: 6, seed: 2)
    let firstAt = try XCTUnwrap(spill.append(first))
    XCTAssertEqual(spill.pair(firstAt + 2).pixels, first[5])
    let secondAt = try XCTUnwrap(spill.append(second))
    XCTAssertEqual(spill.pair(secondAt).png, second[0])
    XCTAssertEqual(spill.pair(secondAt + 2).pixels, second[5])
  }

  /// The file is unlinked as soon as it is made: a killed merge leaves nothing.
  func testSpillFile_isUnlinkedAtOnce() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let spill = try XCTUnwrap(DigestSpill.make(in: folder.path))
    XCTAssertNotNil(spill.append(digests(count: 2, seed: 3)))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
  }

  /// No temporary folder, or a full one: the digests stay in memory, and read the same.
  func testNoFolderOrAFullDisk_keepsTheDigestsInMemory() throws {
    XCTAssertNil(DigestSpill.make(in: "/nonexistent-\(UUID().uuidString)"))
    var calls = FileCalls.system
    calls.writeAt = { _, _, _ in
      errno = ENOSPC
      return -1
    }
    let full = try XCTUnwrap(DigestSpill.make(calls: calls))
    let pairs = digests(count: 4, seed: 4)
    XCTAssertNil(full.append(pairs))
    for spill in [nil, full] {
      let pool = PathPool(["a.png", "b.png"], digests: .spilled(pairs, to: spill))
      guard case .held = PathPool.Digests.spilled(pairs, to: spill) else {
        return XCTFail("spilled into a file that took nothing")
      }
      XCTAssertEqual(pool.digests(1).png, pairs[2])
      XCTAssertEqual(pool.digests(1).pixels, pairs[3])
    }
  }

  private func digests(count: Int, seed: Int) -> [SHA256Digest] {
    (0..<count).map { SHA256Digest(of: Array("\(seed)-\($0)".utf8)) }
  }
}

/// Each source's first pair, set from many threads.
private final class FirstPairs: @unchecked Sendable {
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
