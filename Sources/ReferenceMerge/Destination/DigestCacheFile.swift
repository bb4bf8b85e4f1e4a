import Foundation
import ReferenceImageCore

/// The digest cache's file: a 16-byte header (a magic word, the record size), then one 72-byte
/// record per path key, sorted by key. Fixed-size sorted records are found where they lie, a
/// read of one block each, so a rerun does not hold a table of every file (which would grow by
/// about 72 bytes an image, the largest part of a fleet rerun's peak).
///
/// The file belongs to one machine's `.build` folder, so numbers are in the machine's byte
/// order; a file from another machine (or of an older format) fails the magic word and is an
/// empty cache: every file is hashed once more.
enum DigestCacheFile {
  /// "MRDIGST2" read as a little-endian word.
  static let magic: UInt64 = 0x3254_5347_4944_524D
  static let headerSize = 16
  static let recordSize = 72
  /// Records per block: the sparse index keeps each block's first key, and a lookup reads one
  /// block (2,304 bytes).
  static let blockLength = 32

  /// The header's bytes.
  static var header: [UInt8] {
    var bytes = [UInt8](repeating: 0, count: headerSize)
    bytes.withUnsafeMutableBytes { buffer in
      buffer.storeBytes(of: magic, toByteOffset: 0, as: UInt64.self)
      buffer.storeBytes(of: UInt64(recordSize), toByteOffset: 8, as: UInt64.self)
    }
    return bytes
  }

  static func store(
    _ entry: DigestCache.Entry, in buffer: UnsafeMutableRawBufferPointer, at offset: Int
  ) {
    buffer.storeBytes(of: entry.key, toByteOffset: offset, as: UInt64.self)
    buffer.storeBytes(of: entry.device, toByteOffset: offset + 8, as: UInt64.self)
    buffer.storeBytes(of: entry.inode, toByteOffset: offset + 16, as: UInt64.self)
    buffer.storeBytes(of: Int64(entry.size), toByteOffset: offset + 24, as: Int64.self)
    buffer.storeBytes(of: entry.modified, toByteOffset: offset + 32, as: Int64.self)
    buffer.storeBytes(of: entry.digest, toByteOffset: offset + 40, as: SHA256Digest.self)
  }

  static func load(from buffer: UnsafeRawBufferPointer, at offset: Int) -> DigestCache.Entry {
    DigestCache.Entry(
      key: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self),
      device: buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self),
      inode: buffer.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self),
      size: Int(
        truncatingIfNeeded: buffer.loadUnaligned(fromByteOffset: offset + 24, as: Int64.self)),
      modified: buffer.loadUnaligned(fromByteOffset: offset + 32, as: Int64.self),
      digest: buffer.loadUnaligned(fromByteOffset: offset + 40, as: SHA256Digest.self))
  }

  static func key(in buffer: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
    buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
  }
}

/// A saved cache file, open for lookups: in memory only every block's first key (8 bytes for
/// 32 records).
struct StoredDigests {
  let handle: Int32
  let count: Int
  /// The file's modification time; entries not older than it are not trusted.
  let writtenAt: Int64
  private let blockKeys: [UInt64]
  private let calls: FileCalls

  /// Reads the header and every key, in order; nil when the file is not a whole, sorted cache
  /// file of this format (it is then an empty cache).
  init?(handle: Int32, calls: FileCalls) {
    guard let status = calls.statHandle(handle), status.kind == .regularFile else { return nil }
    let body = status.size - DigestCacheFile.headerSize
    guard body >= 0, body % DigestCacheFile.recordSize == 0 else { return nil }
    var header = [UInt8](repeating: 0, count: DigestCacheFile.headerSize)
    guard header.withUnsafeMutableBytes({ calls.readAll(handle, into: $0, at: 0) }) == header.count,
      header == DigestCacheFile.header
    else { return nil }
    self.handle = handle
    self.calls = calls
    count = body / DigestCacheFile.recordSize
    writtenAt = status.modified
    var keys: [UInt64] = []
    keys.reserveCapacity((count + DigestCacheFile.blockLength - 1) / DigestCacheFile.blockLength)
    var reader = RecordReader(handle: handle, calls: calls, records: 0..<count)
    var previous: UInt64?
    while let key = reader.nextKey() {
      guard previous.map({ $0 < key }) ?? true else { return nil }
      if (reader.position - 1) % DigestCacheFile.blockLength == 0 { keys.append(key) }
      previous = key
    }
    guard !reader.failed else { return nil }
    blockKeys = keys
  }

  /// The record of a key, read from its block; nil when there is none or the read fails.
  func entry(for key: UInt64) -> DigestCache.Entry? {
    let block = blockKeys.lowerBound { $0 <= key } - 1
    guard block >= 0 else { return nil }
    let first = block * DigestCacheFile.blockLength
    let length = min(DigestCacheFile.blockLength, count - first)
    let size = DigestCacheFile.recordSize
    return withUnsafeTemporaryAllocation(
      byteCount: DigestCacheFile.blockLength * size, alignment: 8
    ) { buffer in
      let wanted = UnsafeMutableRawBufferPointer(rebasing: buffer[..<(length * size)])
      guard
        calls.readAll(handle, into: wanted, at: DigestCacheFile.headerSize + first * size)
          == wanted.count
      else { return nil }
      let records = UnsafeRawBufferPointer(wanted)
      for index in 0..<length where DigestCacheFile.key(in: records, at: index * size) == key {
        return DigestCacheFile.load(from: records, at: index * size)
      }
      return nil
    }
  }
}

/// Reads a range of records of a file in order, 8 KiB at a time.
struct RecordReader {
  private let handle: Int32
  private let calls: FileCalls
  private let offset: Int
  private let end: Int
  /// Records read so far, from the range's start.
  private(set) var position = 0
  private(set) var failed = false
  /// 8 KiB: a merge of a large journal reads many runs at once.
  private var buffer = [UInt8](repeating: 0, count: 113 * DigestCacheFile.recordSize)
  private var buffered = 0..<0

  /// - Parameter records: Record positions in a file with a header (`DigestCacheFile`), or in
  ///   a headerless one when `headerSize` is 0.
  init(
    handle: Int32, calls: FileCalls, records: Range<Int>,
    headerSize: Int = DigestCacheFile.headerSize
  ) {
    self.handle = handle
    self.calls = calls
    offset = headerSize + records.lowerBound * DigestCacheFile.recordSize
    end = records.count
  }

  /// The next record's key, moving past it.
  mutating func nextKey() -> UInt64? {
    guard let start = advance() else { return nil }
    return buffer.withUnsafeBytes { DigestCacheFile.key(in: $0, at: start) }
  }

  /// The next record, moving past it.
  mutating func next() -> DigestCache.Entry? {
    guard let start = advance() else { return nil }
    return buffer.withUnsafeBytes { DigestCacheFile.load(from: $0, at: start) }
  }

  /// The buffer offset of the next record, reading more when the buffer is used up.
  private mutating func advance() -> Int? {
    guard position < end, !failed else { return nil }
    let size = DigestCacheFile.recordSize
    if !buffered.contains(position) {
      let count = min(buffer.count / size, end - position)
      let read = buffer.withUnsafeMutableBytes { bytes in
        calls.readAll(
          handle, into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<(count * size)]),
          at: offset + position * size)
      }
      guard read == count * size else {
        failed = true
        return nil
      }
      buffered = position..<position + count
    }
    defer { position += 1 }
    return (position - buffered.lowerBound) * size
  }
}

/// Writes records to a file in order, 64 KiB at a time; the first failure is kept and nothing
/// more is written.
struct RecordWriter {
  private let handle: Int32
  private let calls: FileCalls
  private var offset: Int
  private var chunk: [UInt8] = []
  private var used = 0
  /// The `errno` of the first failed write.
  private(set) var failure: Int32?

  init(handle: Int32, calls: FileCalls, offset: Int) {
    self.handle = handle
    self.calls = calls
    self.offset = offset
    chunk = [UInt8](repeating: 0, count: 910 * DigestCacheFile.recordSize)
  }

  mutating func write(_ entry: DigestCache.Entry) {
    chunk.withUnsafeMutableBytes { DigestCacheFile.store(entry, in: $0, at: used) }
    used += DigestCacheFile.recordSize
    if used == chunk.count { flush() }
  }

  /// Writes what is buffered.
  mutating func flush() {
    defer { used = 0 }
    guard failure == nil, used > 0 else { return }
    failure = chunk.withUnsafeBytes { bytes in
      calls.writeAll(UnsafeRawBufferPointer(rebasing: bytes[..<used]), to: handle, at: offset)
    }
    offset += used
  }
}
