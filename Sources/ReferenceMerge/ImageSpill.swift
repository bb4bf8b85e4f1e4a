import Foundation
import ReferenceImageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the plan needs of each image a merge reads beside its path, origin and flags (its two
/// digests and its size: 72 bytes an image, where the rest of it costs 24), kept in a file of
/// its own instead of in each image. Sources append their images' records as they finish
/// reading; a record is read back through a small cache of the file's blocks, and a plan reads
/// them in path order, source by source, so most reads are the cache's.
///
/// The file is made in the temporary folder (`TMPDIR`) and unlinked at once: it holds nothing
/// anyone else reads, and a merge that is killed leaves nothing behind.
final class ImageSpill: @unchecked Sendable {
  /// One image's record.
  struct Record: Sendable, Equatable {
    /// SHA-256 of the PNG bytes.
    var png: SHA256Digest
    /// SHA-256 of the decoded RGBA8 pixels.
    var pixels: SHA256Digest
    /// The size, in 32 bits (a PNG's limit).
    var width: Int32
    var height: Int32
  }

  /// Records in one block of the file, read at once: 4.5 KiB.
  static let recordsPerBlock = 64
  /// Blocks the cache holds, each in the slot its number falls in: 288 KiB.
  private static let cachedBlocks = 64

  private let handle: Int32
  private let calls: FileCalls
  /// Guards everything below, and the file's end while a source appends.
  private let lock = NSLock()
  /// How many records the file holds.
  private var count = 0
  /// Each slot's block number, or -1.
  private var cachedBlock: [Int]
  /// Each slot's records.
  private var cache: [Record]

  /// A new, empty spill file, or nil when the temporary folder takes no file: the caller then
  /// keeps the records in memory.
  static func make(
    in folder: String = NSTemporaryDirectory(), calls: FileCalls = .system
  ) -> ImageSpill? {
    var template = Array(
      URL(fileURLWithPath: folder).appendingPathComponent("merge-refs-images-XXXXXX").path
        .utf8CString)
    let handle = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard handle >= 0 else { return nil }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return ImageSpill(handle: handle, calls: calls)
  }

  private init(handle: Int32, calls: FileCalls) {
    self.handle = handle
    self.calls = calls
    cachedBlock = Array(repeating: -1, count: Self.cachedBlocks)
    let zero = SHA256Digest(rawBytes: Array(repeating: 0, count: 32))
    cache = Array(
      repeating: Record(png: zero, pixels: zero, width: 0, height: 0),
      count: Self.cachedBlocks * Self.recordsPerBlock)
  }

  deinit { _ = calls.close(handle) }

  /// Appends records.
  /// - Returns: The number of the first, or nil when the file could not take them (a full
  ///   disk): the caller keeps them in memory.
  func append(_ records: [Record]) -> Int? {
    lock.lock()
    defer { lock.unlock() }
    let first = count
    guard !records.isEmpty else { return first }
    let failure = records.withUnsafeBytes {
      calls.writeAll($0, to: handle, at: first * Self.recordBytes)
    }
    guard failure == nil else { return nil }
    count += records.count
    // A block cached before these records were written lacks them.
    for block in Self.block(of: first)...Self.block(of: count - 1) {
      cachedBlock[Self.slot(of: block)] = -1
    }
    return first
  }

  /// The record with a number `append` returned.
  func record(_ number: Int) -> Record {
    lock.lock()
    defer { lock.unlock() }
    let block = Self.block(of: number)
    let slot = Self.slot(of: block)
    if cachedBlock[slot] != block { load(block, into: slot) }
    return cache[slot * Self.recordsPerBlock + number % Self.recordsPerBlock]
  }

  /// Reads a block into a slot of the cache, in place.
  private func load(_ block: Int, into slot: Int) {
    let wanted = min(Self.recordsPerBlock, count - block * Self.recordsPerBlock) * Self.recordBytes
    let read = cache.withUnsafeMutableBytes { bytes in
      let start = slot * Self.recordsPerBlock * Self.recordBytes
      return calls.readAll(
        handle, into: UnsafeMutableRawBufferPointer(rebasing: bytes[start..<start + wanted]),
        at: block * Self.recordsPerBlock * Self.recordBytes)
    }
    // The file is this process's alone and unlinked: only a failing disk gets here, and a
    // wrong digest would decide a merge.
    guard read == wanted else {
      fatalError(
        "merge-refs could not read back its file of image records: \(String(cString: strerror(errno)))"
      )
    }
    cachedBlock[slot] = block
  }

  private static let recordBytes = MemoryLayout<Record>.stride

  private static func block(of record: Int) -> Int { record / recordsPerBlock }

  private static func slot(of block: Int) -> Int { block % cachedBlocks }
}
