import Foundation
import ReferenceImageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The two digests of every image a merge reads (PNG bytes, pixels), kept in a file of its
/// own instead of in each image: 64 bytes an image that the plan needs once or twice, where
/// the rest of an image costs 32. Sources append their images' pairs as they finish reading;
/// a pair is read back through a small cache of the file's blocks, and a plan reads them in
/// path order, source by source, so most reads are the cache's.
///
/// The file is made in the temporary folder (`TMPDIR`) and unlinked at once: it holds nothing
/// anyone else reads, and a merge that is killed leaves nothing behind.
final class DigestSpill: @unchecked Sendable {
  /// Pairs in one block of the file, read at once: 4 KiB.
  static let pairsPerBlock = 64
  /// Blocks the cache holds, each in the slot its number falls in: 256 KiB.
  private static let cachedBlocks = 64

  private let handle: Int32
  private let calls: FileCalls
  /// Guards everything below, and the file's end while a source appends.
  private let lock = NSLock()
  /// How many pairs the file holds.
  private var pairCount = 0
  /// Each slot's block number, or -1.
  private var cachedBlock: [Int]
  /// Each slot's digests, two a pair.
  private var cache: [SHA256Digest]

  /// A new, empty spill file, or nil when the temporary folder takes no file: the caller then
  /// keeps the digests in memory.
  static func make(
    in folder: String = NSTemporaryDirectory(), calls: FileCalls = .system
  ) -> DigestSpill? {
    var template = Array(
      URL(fileURLWithPath: folder).appendingPathComponent(
        "merge-refs-digests-XXXXXX"
      ).path.utf8CString)
    let handle = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard handle >= 0 else { return nil }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return DigestSpill(handle: handle, calls: calls)
  }

  private init(handle: Int32, calls: FileCalls) {
    self.handle = handle
    self.calls = calls
    cachedBlock = Array(repeating: -1, count: Self.cachedBlocks)
    cache = Array(
      repeating: SHA256Digest(rawBytes: Array(repeating: 0, count: 32)),
      count: Self.cachedBlocks * Self.pairsPerBlock * 2)
  }

  deinit { _ = calls.close(handle) }

  /// Appends pairs (`digests` holds two a pair: PNG, then pixels).
  /// - Returns: The number of the first pair, or nil when the file could not take them (a
  ///   full disk): the caller keeps them in memory.
  func append(_ digests: [SHA256Digest]) -> Int? {
    precondition(digests.count % 2 == 0, "digests come in pairs")
    lock.lock()
    defer { lock.unlock() }
    let first = pairCount
    guard !digests.isEmpty else { return first }
    let failure = digests.withUnsafeBytes {
      calls.writeAll($0, to: handle, at: first * Self.pairBytes)
    }
    guard failure == nil else { return nil }
    pairCount += digests.count / 2
    // A block cached before these pairs were written lacks them.
    for block in Self.block(of: first)...Self.block(of: pairCount - 1) {
      cachedBlock[Self.slot(of: block)] = -1
    }
    return first
  }

  /// The pair with a number `append` returned.
  func pair(_ number: Int) -> (png: SHA256Digest, pixels: SHA256Digest) {
    lock.lock()
    defer { lock.unlock() }
    let block = Self.block(of: number)
    let slot = Self.slot(of: block)
    if cachedBlock[slot] != block { load(block, into: slot) }
    let at = (slot * Self.pairsPerBlock + number % Self.pairsPerBlock) * 2
    return (cache[at], cache[at + 1])
  }

  /// Reads a block into a slot of the cache, in place.
  private func load(_ block: Int, into slot: Int) {
    let wanted = min(Self.pairsPerBlock, pairCount - block * Self.pairsPerBlock) * Self.pairBytes
    let read = cache.withUnsafeMutableBytes { bytes in
      let start = slot * Self.pairsPerBlock * Self.pairBytes
      return calls.readAll(
        handle, into: UnsafeMutableRawBufferPointer(rebasing: bytes[start..<start + wanted]),
        at: block * Self.pairsPerBlock * Self.pairBytes)
    }
    // The file is this process's alone and unlinked: only a failing disk gets here, and a
    // wrong digest would decide a merge.
    guard read == wanted else {
      fatalError(
        "merge-refs could not read back its digest file: \(String(cString: strerror(errno)))")
    }
    cachedBlock[slot] = block
  }

  private static let pairBytes = 2 * MemoryLayout<SHA256Digest>.stride

  private static func block(of pair: Int) -> Int { pair / pairsPerBlock }

  private static func slot(of block: Int) -> Int { block % cachedBlocks }
}
