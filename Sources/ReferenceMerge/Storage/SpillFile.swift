import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Fixed-size records of a plain type, kept in a file instead of in memory and read back
/// through a small cache of the file's blocks: callers that read records in order read most
/// of them from the cache. Thread-safe.
///
/// The file is made in the temporary folder (`TMPDIR`) and unlinked at once: it holds nothing
/// anyone else reads, and a process that is killed leaves nothing behind.
final class SpillFile<Record>: @unchecked Sendable {
  /// Records in one block of the file, read at once.
  static var recordsPerBlock: Int { 64 }
  /// Blocks the cache holds, each in the slot its number falls in.
  private static var cachedBlocks: Int { 64 }

  private let handle: Int32
  private let calls: FileCalls
  /// Guards everything below, and the file's end while records are appended.
  private let lock = NSLock()
  /// How many records the file holds, holes included.
  private var count = 0
  /// Each slot's block number, or -1.
  private var cachedBlock: [Int]
  /// Each slot's records.
  private var cache: [Record]

  /// A new, empty file, or nil when the temporary folder takes no file.
  init?(named name: String, in folder: String, calls: FileCalls) {
    precondition(_isPOD(Record.self), "records are written as their bytes")
    var template = Array(
      URL(fileURLWithPath: folder).appendingPathComponent("\(name)-XXXXXX").path.utf8CString)
    let handle = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard handle >= 0 else { return nil }
    // Closed on exec: a child process of a tool that merges has no use for it.
    _ = fcntl(handle, F_SETFD, FD_CLOEXEC)
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    self.handle = handle
    self.calls = calls
    cachedBlock = Array(repeating: -1, count: Self.cachedBlocks)
    // Zero bytes, as a record never written reads.
    cache = Array(unsafeUninitializedCapacity: Self.cachedBlocks * Self.recordsPerBlock) {
      records, count in
      UnsafeMutableRawBufferPointer(records).initializeMemory(as: UInt8.self, repeating: 0)
      count = records.count
    }
  }

  deinit { _ = calls.close(handle) }

  /// Appends records.
  /// - Returns: The number of the first, or nil when the file could not take them (a full
  ///   disk).
  func append(_ records: [Record]) -> Int? {
    lock.lock()
    defer { lock.unlock() }
    let first = count
    guard records.withUnsafeBytes({ write($0, at: first) }) else { return nil }
    count += records.count
    return first
  }

  /// Writes a record at a number, past the end or over one written before.
  /// - Returns: Whether the file took it.
  func write(_ record: Record, at number: Int) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    guard withUnsafeBytes(of: record, { write($0, at: number) }) else { return false }
    count = max(count, number + 1)
    return true
  }

  /// The record with a number; a record never written reads as zero bytes.
  func record(_ number: Int) -> Record {
    lock.lock()
    defer { lock.unlock() }
    let block = number / Self.recordsPerBlock
    let slot = block % Self.cachedBlocks
    if cachedBlock[slot] != block { load(block, into: slot) }
    return cache[slot * Self.recordsPerBlock + number % Self.recordsPerBlock]
  }

  /// Writes bytes at a record's place; the caller holds `lock`.
  private func write(_ bytes: UnsafeRawBufferPointer, at number: Int) -> Bool {
    guard !bytes.isEmpty else { return true }
    guard calls.writeAll(bytes, to: handle, at: number * Self.recordBytes) == nil else {
      return false
    }
    // A block cached before these records were written lacks them.
    let last = number + bytes.count / Self.recordBytes - 1
    for block in number / Self.recordsPerBlock...last / Self.recordsPerBlock {
      cachedBlock[block % Self.cachedBlocks] = -1
    }
    return true
  }

  /// Reads a block into a slot of the cache, in place; the caller holds `lock`.
  private func load(_ block: Int, into slot: Int) {
    let size = Self.recordsPerBlock * Self.recordBytes
    let read = cache.withUnsafeMutableBytes { bytes in
      let start = slot * size
      let target = UnsafeMutableRawBufferPointer(rebasing: bytes[start..<start + size])
      let read = calls.readAll(handle, into: target, at: block * size)
      // Past the file's end: records never written.
      if let read, read < size {
        UnsafeMutableRawBufferPointer(rebasing: target[read...]).initializeMemory(
          as: UInt8.self, repeating: 0)
      }
      return read
    }
    // The file is this process's alone and unlinked: only a failing disk gets here, and a
    // wrong record would decide a merge.
    guard read != nil else {
      fatalError(
        "merge-refs could not read back its own spill file: \(String(cString: strerror(errno)))")
    }
    cachedBlock[slot] = block
  }

  private static var recordBytes: Int { MemoryLayout<Record>.stride }
}
