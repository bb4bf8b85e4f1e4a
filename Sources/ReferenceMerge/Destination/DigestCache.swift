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
  struct Entry {
    var device: UInt64
    var inode: UInt64
    var size: Int
    var modified: Int64
    var digest: SHA256Digest
  }

  /// The cache file's name inside `.build`.
  static let fileName = "merge-refs-digests"

  private let calls: FileCalls
  private let buildFolder: Int32
  private let lock = NSLock()
  /// The entries read from the cache file.
  private var entries: [String: Entry] = [:]
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
    guard let entry = entries[path], entry.device == status.device, entry.inode == status.inode,
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
    entries.removeValue(forKey: path)
    add(
      path,
      Entry(
        device: status.device, inode: status.inode, size: status.size, modified: status.modified,
        digest: digest))
    changed = true
  }

  /// Writes the cache when something was learned: the entries read that were not learned again
  /// follow the learned ones, then the file is renamed into place. A cache that cannot be
  /// written costs the next run time, not correctness, so failures are ignored. Saved once,
  /// when a merge ends: the entries are let go, and what is learned afterwards is not kept.
  func save() {
    lock.lock()
    defer {
      entries = [:]
      chunk = []
      saved = true
      lock.unlock()
    }
    guard changed && !saved else { return }
    for (path, entry) in entries where !broken { add(path, entry) }
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
  private func add(_ path: String, _ entry: Entry) {
    chunk += "\(entry.device) \(entry.inode) \(entry.size) \(entry.modified) ".utf8
    chunk += entry.digest.hex.utf8
    chunk.append(UInt8(ascii: " "))
    chunk += path.utf8
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
    let handle = calls.openAt(buildFolder, Self.fileName, O_RDONLY | O_NOFOLLOW)
    guard handle >= 0 else { return }
    defer { _ = calls.close(handle) }
    guard let status = calls.statHandle(handle), status.kind == .regularFile,
      status.size < 1 << 30
    else { return }
    guard let bytes = calls.readAll(handle, size: status.size), bytes.count == status.size
    else { return }
    writtenAt = status.modified
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5)
      guard fields.count == 6,
        let device = UInt64(String(decoding: fields[0], as: UTF8.self)),
        let inode = UInt64(String(decoding: fields[1], as: UTF8.self)),
        let size = Int(String(decoding: fields[2], as: UTF8.self)),
        let modified = Int64(String(decoding: fields[3], as: UTF8.self)),
        let digest = SHA256Digest(hex: String(decoding: fields[4], as: UTF8.self))
      else { continue }
      entries[String(decoding: fields[5], as: UTF8.self)] = Entry(
        device: device, inode: inode, size: size, modified: modified, digest: digest)
    }
  }
}
