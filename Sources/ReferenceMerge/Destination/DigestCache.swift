import Foundation
import ReferenceArchive
import ReferenceImageCore

/// The SHA-256 of destination files as of the last merge, keyed by device, inode, size and
/// modification time (nanoseconds), kept in the package's `.build` folder, so a rerun into an
/// up-to-date tree decides "unchanged" from one `fstatat` per file instead of reading it.
///
/// Git's rule for racy timestamps holds: an entry counts only when the file's modification
/// time is older than the cache file's own, since a file changed in the same clock tick as the
/// cache was written could keep its time stamp and size. Such files are hashed again.
final class DigestCache: @unchecked Sendable {
  /// One file's digest, found by its path's key and trusted only while the file is the same
  /// (device, inode, size, time). The key is a hash, not the path: two paths that share a key
  /// are still two files with two inodes, so a shared key costs a hash, never a wrong digest.
  struct Entry {
    var key: UInt64
    var device: UInt64
    var inode: UInt64
    /// -1 once the file was learned again (`remember`): the newer line is already written.
    var size: Int
    var modified: Int64
    var digest: SHA256Digest
  }

  /// The cache file's name inside `.build`.
  static let fileName = "merge-refs-digests"

  private let calls: FileCalls
  private let buildFolder: Int32
  private let lock = NSLock()
  /// The entries read from the cache file, sorted by key, one per key: a flat table, 72 bytes
  /// an entry. A table by path cost a rerun of many archives about 300 bytes an image, its
  /// path strings included (`valgrind --tool=massif` of a 50,000-image rerun).
  private var entries: [Entry] = []
  /// The next cache file, written as entries are learned (a later line for a path wins when
  /// the file is read) and renamed into place by `save()`. Kept on disk, not in memory: a
  /// merge of many archives learns tens of thousands of entries.
  private var pending: (handle: Int32, name: String)?
  /// Lines not yet written to `pending`, up to 64 KiB.
  private var chunk: [UInt8] = []
  /// Whether writing `pending` failed: nothing more is written, and the old cache stays.
  private var broken = false
  /// The cache file's modification time; entries not older than it are not trusted.
  private var writtenAt: Int64 = .min
  private var changed = false
  private var saved = false
  /// Set by `settle()` when nothing had been learned yet: the cache file's lines are carried
  /// into the next file by `save()`, read again then instead of held meanwhile.
  private var carriesFile = false
  /// The keys learned since `settle()` while `carriesFile`: their old lines are not carried.
  private var learnedSinceSettling: [UInt64] = []

  /// Opens the cache of a package, or returns nil when the package has no `.build` folder
  /// (a destination that is not a built package gets no cache file).
  init?(root: Int32, calls: FileCalls) {
    let buildFolder = calls.openAt(root, ".build", O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    guard buildFolder >= 0 else { return nil }
    self.calls = calls
    self.buildFolder = buildFolder
    load()
  }

  deinit {
    discardPending()
    _ = calls.close(buildFolder)
  }

  /// The digest of a file whose status matches its entry and is older than the cache.
  func digest(_ path: String, status: FileStatus) -> SHA256Digest? {
    lock.lock()
    defer { lock.unlock() }
    guard let index = index(of: PathKey.of(path)) else { return nil }
    let entry = entries[index]
    guard entry.device == status.device, entry.inode == status.inode,
      entry.size == status.size, entry.modified == status.modified,
      status.modified < writtenAt
    else { return nil }
    return entry.digest
  }

  /// Records the digest of a file as it is now.
  func remember(_ path: String, status: FileStatus, digest: SHA256Digest) {
    lock.lock()
    defer { lock.unlock() }
    guard !saved && !broken else { return }
    let key = PathKey.of(path)
    if let index = index(of: key) { entries[index].size = -1 }
    if carriesFile { learnedSinceSettling.append(key) }
    add(
      Entry(
        key: key, device: status.device, inode: status.inode, size: status.size,
        modified: status.modified, digest: digest))
    changed = true
  }

  /// The position of a key's entry, by binary search; the caller holds `lock`.
  private func index(of key: UInt64) -> Int? {
    let index = entries.lowerBound { $0.key < key }
    return index < entries.count && entries[index].key == key ? index : nil
  }

  /// Lets go of the entries once the sources are read, when the merge asks for every file it
  /// read them for: a rerun of 500,000 images held them, 36 MB, through its peak
  /// (`valgrind --tool=massif`). The entries still wanted are carried into the next cache file
  /// now when it will be written anyway, else by `save()` from the file. Later questions are
  /// answered by hashing the file.
  func settle() {
    lock.lock()
    defer { lock.unlock() }
    guard !saved && !entries.isEmpty else { return }
    if changed {
      for entry in entries where entry.size >= 0 && !broken { add(entry) }
    } else {
      carriesFile = true
    }
    entries = []
  }

  /// Writes the cache when something was learned: the entries read that were not learned again
  /// follow the learned ones, then the file is renamed into place. A cache that cannot be
  /// written costs the next run time, not correctness, so failures are ignored. Saved once,
  /// when a merge ends: the entries are let go, and what is learned afterwards is not kept.
  func save() {
    lock.lock()
    defer {
      entries = []
      chunk = []
      saved = true
      lock.unlock()
    }
    guard changed && !saved else { return }
    for entry in entries where entry.size >= 0 && !broken { add(entry) }
    if carriesFile { carryStoredEntries() }
    flush()
    guard let pending, !broken else {
      discardPending()
      return
    }
    self.pending = nil
    if calls.close(pending.handle) != 0
      || calls.renameAt(buildFolder, pending.name, buildFolder, Self.fileName) != 0
    {
      _ = calls.unlinkAt(buildFolder, pending.name, false)
    }
  }

  /// Adds an entry's line, writing the lines out every 64 KiB; the caller holds `lock`.
  private func add(_ entry: Entry) {
    chunk += "\(entry.device) \(entry.inode) \(entry.size) \(entry.modified) ".utf8
    chunk += entry.digest.hex.utf8
    chunk.append(UInt8(ascii: " "))
    chunk += String(entry.key, radix: 16).utf8
    chunk.append(UInt8(ascii: "\n"))
    if chunk.count >= 1 << 16 { flush() }
  }

  /// Writes the lines so far to the next cache file, creating it first; the caller holds
  /// `lock`.
  private func flush() {
    guard !broken && !chunk.isEmpty else { return }
    if pending == nil {
      let name = FileSystem.temporaryName(for: Self.fileName)
      let handle = calls.openAt(buildFolder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW)
      guard handle >= 0 else {
        broken = true
        return
      }
      pending = (handle, name)
    }
    if let pending, calls.writeAll(chunk, to: pending.handle) != nil {
      broken = true
    }
    chunk.removeAll(keepingCapacity: true)
  }

  /// Removes the next cache file when it was not saved (a merge that stopped, or failed).
  private func discardPending() {
    guard let pending else { return }
    self.pending = nil
    _ = calls.close(pending.handle)
    _ = calls.unlinkAt(buildFolder, pending.name, false)
  }

  /// Reads the cache file; a missing or damaged one is an empty cache.
  private func load() {
    // Sized once, from a first pass counting the lines: a table grown by doubling would hold
    // up to twice the entries.
    var lines = 0
    guard forEachStoredLine({ _ in lines += 1 }) != nil else { return }
    entries.reserveCapacity(lines)
    let read = forEachStoredLine { line in
      var fields = LineFields(line)
      if let entry = fields.entry() { entries.append(entry) }
    }
    guard let read else {
      entries = []
      return
    }
    writtenAt = read.modified
    keepLastOfEachKey()
  }

  /// Writes again the cache file's entries that were not learned since `settle()`, in the
  /// file's order (a later line for a key still wins); the caller holds `lock`.
  private func carryStoredEntries() {
    learnedSinceSettling.sort()
    _ = forEachStoredLine { line in
      var fields = LineFields(line)
      guard let entry = fields.entry(), !broken,
        !learnedSinceSettling.sortedContains(entry.key)
      else { return }
      add(entry)
    }
  }

  /// Calls `body` with each line of the cache file, without its line feed, reading 1 MiB at a
  /// time: the file of 500,000 entries is 60 MB. Read in place: a string of every field took
  /// 4% of an up-to-date rerun (`perf record`).
  /// - Returns: The file's status; nil when there is no cache file, or reading it failed
  ///   (after the lines read before).
  private func forEachStoredLine(_ body: (UnsafeBufferPointer<UInt8>) -> Void) -> FileStatus? {
    let handle = calls.openAt(buildFolder, Self.fileName, O_RDONLY | O_NOFOLLOW)
    guard handle >= 0 else { return nil }
    defer { _ = calls.close(handle) }
    guard let status = calls.statHandle(handle), status.kind == .regularFile,
      status.size < 1 << 30
    else { return nil }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var held = 0  // bytes of a line begun in the previous chunk, at the buffer's start
    while true {
      let count = buffer.withUnsafeMutableBytes { bytes in
        calls.read(handle, UnsafeMutableRawBufferPointer(rebasing: bytes[held...]))
      }
      if count < 0 && errno == EINTR { continue }
      if count < 0 { return nil }
      if count == 0 { break }
      let end = held + count
      var start = 0
      buffer.withUnsafeBufferPointer { bytes in
        while let feed = bytes[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
          body(UnsafeBufferPointer(rebasing: bytes[start..<feed]))
          start = feed + 1
        }
      }
      held = end - start
      // A line longer than the buffer is no entry: it is dropped.
      if held == buffer.count { held = 0 }
      buffer.withUnsafeMutableBytes { bytes in
        _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, held)
      }
    }
    if held > 0 {
      buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[..<held])) }
    }
    return status
  }

  /// Sorts the entries by key and keeps, of entries with one key, the last line read: the
  /// file is written in the order files were learned, so a later line is newer.
  private func keepLastOfEachKey() {
    entries.sort { $0.key < $1.key }  // stable: lines with one key keep their order
    var kept = 0
    for index in entries.indices {
      if kept > 0 && entries[kept - 1].key == entries[index].key {
        entries[kept - 1] = entries[index]
      } else {
        entries[kept] = entries[index]
        kept += 1
      }
    }
    entries.removeLast(entries.count - kept)
    // A merge that updated files wrote two lines for each (hashed, then written): the table
    // sized by lines would keep room for twice the entries.
    if entries.capacity > entries.count + entries.count / 4 {
      var exact: [Entry] = []
      exact.reserveCapacity(entries.count)
      exact.append(contentsOf: entries)
      entries = exact
    }
  }
}

/// The fields of one line of the cache file, read left to right: "device inode size modified
/// digest key", each separated by one space. A line of the older format ends with a path, not a
/// key: it reads as nothing, so that file is hashed once more.
private struct LineFields {
  private let line: UnsafeBufferPointer<UInt8>
  private var position = 0

  init(_ line: UnsafeBufferPointer<UInt8>) { self.line = line }

  /// The entry the line describes, or nil when it is not one.
  mutating func entry() -> DigestCache.Entry? {
    guard let device = decimal(), let inode = decimal(), let size = decimal(),
      size <= UInt64(Int.max), let modified = signedDecimal(),
      let digest = field().flatMap(SHA256Digest.init(hexDigits:)), let key = hexadecimal(),
      position > line.count
    else { return nil }
    return DigestCache.Entry(
      key: key, device: device, inode: inode, size: Int(size), modified: modified,
      digest: digest)
  }

  /// The next field: the bytes up to the next space or the line's end; nil past the end.
  private mutating func field() -> UnsafeBufferPointer<UInt8>? {
    guard position <= line.count else { return nil }
    let start = position
    while position < line.count && line[position] != UInt8(ascii: " ") { position += 1 }
    defer { position += 1 }
    return UnsafeBufferPointer(rebasing: line[start..<position])
  }

  private mutating func decimal() -> UInt64? {
    guard let digits = field(), !digits.isEmpty else { return nil }
    var value: UInt64 = 0
    for digit in digits {
      guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
      let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
      let (sum, carry) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
      guard !overflow && !carry else { return nil }
      value = sum
    }
    return value
  }

  private mutating func signedDecimal() -> Int64? {
    let negative = position < line.count && line[position] == UInt8(ascii: "-")
    if negative { position += 1 }
    guard let magnitude = decimal() else { return nil }
    if negative {
      return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
    }
    return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
  }

  private mutating func hexadecimal() -> UInt64? {
    field().flatMap(SHA256Digest.hexWord)
  }
}
