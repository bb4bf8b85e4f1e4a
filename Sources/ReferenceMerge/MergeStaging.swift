import Foundation
import ReferenceArchive
import ReferenceImageCore

/// A hidden folder directly below the destination root where entries that will probably be
/// written are put while the sources are read, so applying the plan is one `renameat` instead
/// of a second read of every archive. Nothing in it is visible at a reference path; it is
/// removed when the merge ends, and a merge killed before that leaves it to the next one.
/// Sources are read concurrently, so staging is thread-safe.
final class MergeStaging: @unchecked Sendable {
  /// One staged entry, 32 bytes. Kept in a flat array, sorted once applying starts, rather
  /// than a table keyed by source and path: a merge of many archives stages hundreds of
  /// thousands of entries, and a hash table's free slots, or each entry's path and full status,
  /// cost more than the entries themselves (entries of 64 bytes, 4.2 MB, and 1.6 MB to sort
  /// them were at the peak of a 50,000-image first merge; `valgrind --tool=massif`).
  private struct Staged {
    /// The path's key (`PathKey`). Two staged paths of one source that share a key are both
    /// left unfound, so they are read again from their source: a shared key costs time, never
    /// a wrong file.
    var key: UInt64
    /// The source's number in `sourceNumbers`.
    var source: Int32
    /// The file's name in the staging folder, a number; 0 once moved into place.
    var file: UInt32
    /// What the digest cache keys on, as the file was written; its device is the staging
    /// folder's (`device`). `size` is `UInt32.max` when unknown.
    var inode: UInt64
    var modified: Int64
  }

  /// Each staged file's size, by its number less one, apart so that `Staged` stays 32 bytes:
  /// `UInt32.max` when unknown.
  private var sizes: [UInt32] = []

  /// The name prefix of staging folders; it starts like every temporary file of this package.
  static let prefix = FileSystem.temporaryPrefix + "staging-"

  let destination: Destination
  private let name: String
  private let handle: Int32
  private let lock = NSLock()
  private var sourceNumbers: [MergeSource: Int32] = [:]
  private var staged: [Staged] = []
  private var sorted = true
  /// The device of the staged files, all in one folder; nil until one is written with a status.
  private var device: UInt64?
  private var moved = 0
  private var count: UInt32 = 0
  private var disabled = false

  /// Creates the folder, first removing any left by an interrupted merge.
  init(destination: Destination) throws(MergeError) {
    self.destination = destination
    destination.removePrivateFolders(prefix: Self.prefix)
    name = "\(Self.prefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    handle = try destination.makePrivateFolder(name)
  }

  /// Keeps an entry's bytes for a later rename into place. Staging is an optimisation: when it
  /// fails (a full disk), staging stops and the entry is read again when the plan is applied,
  /// where a write failure is reported as such.
  func stage(_ bytes: [UInt8], source: MergeSource, path: String) {
    lock.lock()
    guard !disabled else {
      lock.unlock()
      return
    }
    count += 1
    // Flat, numbered names: no folders to create, no paths to check.
    let file = count
    sizes.append(.max)
    lock.unlock()
    let key = PathKey.of(path)
    do {
      let status = try destination.writeNew(bytes, in: handle, name: "\(file)", shownAs: name)
      lock.lock()
      let number = sourceNumbers[source] ?? Int32(sourceNumbers.count)
      sourceNumbers[source] = number
      if device == nil { device = status?.device }
      let known = status.flatMap { $0.device == device && $0.size < UInt32.max ? $0 : nil }
      staged.append(
        Staged(
          key: key, source: number, file: file, inode: known?.inode ?? 0,
          modified: known?.modified ?? 0))
      if let known { sizes[Int(file) - 1] = UInt32(known.size) }
      sorted = false
      lock.unlock()
    } catch {
      lock.lock()
      disabled = true
      lock.unlock()
    }
  }

  /// Renames an entry's staged file into place.
  /// - Parameter digest: The entry's SHA-256, remembered for the next run.
  /// - Returns: false when the entry was not staged.
  func moveIntoPlace(source: MergeSource, path: String, digest: SHA256Digest)
    throws(MergeError) -> Bool
  {
    lock.lock()
    let found = take(source: source, key: PathKey.of(path))
    lock.unlock()
    guard let (file, status) = found else { return false }
    try destination.moveIn(from: handle, "\(file)", to: path, status: status, digest: digest)
    return true
  }

  /// Finds an entry and marks it moved: its file's number and status; the caller holds
  /// `lock`.
  private func take(source: MergeSource, key: UInt64) -> (UInt32, FileStatus?)? {
    guard let number = sourceNumbers[source] else { return nil }
    if !sorted { sortStaged() }
    let low = staged.lowerBound { ($0.key, $0.source) < (key, number) }
    let matches = { (index: Int) in
      index < self.staged.count && self.staged[index].key == key
        && self.staged[index].source == number
    }
    guard matches(low), !matches(low + 1), staged[low].file != 0 else { return nil }
    let found = staged[low]
    staged[low].file = 0
    moved += 1
    let size = Int(found.file) <= sizes.count ? sizes[Int(found.file) - 1] : .max
    let status = device.flatMap { device in
      size == .max
        ? nil
        : FileStatus(
          kind: .regularFile, device: device, inode: found.inode, size: Int(size),
          modified: found.modified)
    }
    // Once every entry is in place, the lists are let go.
    if moved == staged.count {
      staged = []
      sizes = []
      moved = 0
    }
    return (found.file, status)
  }

  /// Sorts the entries by key and source in place: a sort that allocates holds half the
  /// entries again. A heap sort, so no order among equal keys is promised (`take` finds none
  /// for a key two entries share).
  private func sortStaged() {
    let before = { (a: Staged, b: Staged) in (a.key, a.source) < (b.key, b.source) }
    staged.withUnsafeMutableBufferPointer { entries in
      func siftDown(_ start: Int, _ end: Int) {
        var root = start
        while 2 * root + 1 < end {
          var child = 2 * root + 1
          if child + 1 < end && before(entries[child], entries[child + 1]) { child += 1 }
          guard before(entries[root], entries[child]) else { return }
          entries.swapAt(root, child)
          root = child
        }
      }
      for start in stride(from: entries.count / 2 - 1, through: 0, by: -1) {
        siftDown(start, entries.count)
      }
      for end in stride(from: entries.count - 1, to: 0, by: -1) {
        entries.swapAt(0, end)
        siftDown(0, end)
      }
    }
    sorted = true
  }

  /// Removes the folder and everything still in it.
  func remove() {
    destination.removePrivateFolder(name, handle: handle)
  }
}
