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
  /// Entries learned in this run, in order (a later one for a path wins when the file is read),
  /// in pieces of `pieceSize`. A list, not a table, and in pieces, not one array grown by
  /// doubling: a merge of many archives learns tens of thousands, and a table's free slots or
  /// a doubling's two copies would cost more than the entries.
  private var learned: [[(path: String, entry: Entry)]] = []
  private static let pieceSize = 4096
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

  deinit { _ = calls.close(buildFolder) }

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
    guard !saved else { return }
    entries.removeValue(forKey: path)
    if learned.last.map({ $0.count == Self.pieceSize }) ?? true {
      learned.append([])
      learned[learned.count - 1].reserveCapacity(Self.pieceSize)
    }
    learned[learned.count - 1].append(
      (
        path,
        Entry(
          device: status.device, inode: status.inode, size: status.size,
          modified: status.modified, digest: digest)
      ))
    changed = true
  }

  /// Writes the cache (temporary name, then rename) when something was learned. A cache that
  /// cannot be written costs the next run time, not correctness, so failures are ignored.
  /// Saved once, when a merge ends: the entries are let go, and what is learned afterwards is
  /// not kept.
  func save() {
    lock.lock()
    defer {
      entries = [:]
      learned = []
      saved = true
      lock.unlock()
    }
    guard changed && !saved else { return }
    let temporary = FileSystem.temporaryName(for: Self.fileName)
    let handle = calls.openAt(buildFolder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW)
    guard handle >= 0 else { return }
    // Written in 64 KiB pieces: the whole text of a merge of many archives would be a peak
    // of its own.
    var chunk: [UInt8] = []
    chunk.reserveCapacity(1 << 16)
    var complete = true
    func add(_ path: String, _ entry: Entry) {
      chunk += "\(entry.device) \(entry.inode) \(entry.size) \(entry.modified) ".utf8
      chunk += entry.digest.hex.utf8
      chunk.append(UInt8(ascii: " "))
      chunk += path.utf8
      chunk.append(UInt8(ascii: "\n"))
      if chunk.count >= 1 << 16 && complete {
        complete = calls.writeAll(chunk, to: handle) == nil
        chunk.removeAll(keepingCapacity: true)
      }
    }
    for (path, entry) in entries where complete { add(path, entry) }
    for (path, entry) in learned.joined() where complete { add(path, entry) }
    complete = complete && calls.writeAll(chunk, to: handle) == nil
    complete = calls.close(handle) == 0 && complete
    if !complete || calls.renameAt(buildFolder, temporary, buildFolder, Self.fileName) != 0 {
      _ = calls.unlinkAt(buildFolder, temporary, false)
    }
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
