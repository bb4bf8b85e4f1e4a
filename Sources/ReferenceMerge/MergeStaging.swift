import Foundation
import ReferenceArchive
import ReferenceImageCore

/// A hidden folder directly below the destination root where entries that will probably be
/// written are put while the sources are read, so applying the plan is one `renameat` instead
/// of a second read of every archive. Nothing in it is visible at a reference path; it is
/// removed when the merge ends, and a merge killed before that leaves it to the next one.
/// Sources are read concurrently, so staging is thread-safe.
final class MergeStaging: @unchecked Sendable {
  /// One staged entry. Kept in a flat array, sorted by path once applying starts, rather than
  /// a table keyed by source and path: a merge of many archives stages tens of thousands of
  /// entries, and a hash table's free slots cost more than the entries themselves.
  private struct Staged {
    var path: String
    /// The source's number in `sourceNumbers`.
    var source: Int32
    /// The file's name in the staging folder, a number; 0 once moved into place.
    var file: UInt32
    var status: FileStatus?
  }

  /// The name prefix of staging folders; it starts like every temporary file of this package.
  static let prefix = FileSystem.temporaryPrefix + "staging-"

  let destination: Destination
  private let name: String
  private let handle: Int32
  private let lock = NSLock()
  private var sourceNumbers: [MergeSource: Int32] = [:]
  private var staged: [Staged] = []
  private var sortedByPath = true
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
    lock.unlock()
    do {
      let status = try destination.writeNew(bytes, in: handle, name: "\(file)", shownAs: name)
      lock.lock()
      let number = sourceNumbers[source] ?? Int32(sourceNumbers.count)
      sourceNumbers[source] = number
      staged.append(Staged(path: path, source: number, file: file, status: status))
      sortedByPath = false
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
    let file = take(source: source, path: path)
    lock.unlock()
    guard let file else { return false }
    try destination.moveIn(
      from: handle, "\(file.file)", to: path, status: file.status, digest: digest)
    return true
  }

  /// Finds an entry and marks it moved; the caller holds `lock`.
  private func take(source: MergeSource, path: String) -> Staged? {
    guard let number = sourceNumbers[source] else { return nil }
    if !sortedByPath {
      staged.sort { ($0.path, $0.source) < ($1.path, $1.source) }
      sortedByPath = true
    }
    // The first entry not before (path, number).
    var low = 0
    var high = staged.count
    while low < high {
      let middle = (low + high) / 2
      if (staged[middle].path, staged[middle].source) < (path, number) {
        low = middle + 1
      } else {
        high = middle
      }
    }
    guard low < staged.count, staged[low].path == path, staged[low].source == number,
      staged[low].file != 0
    else { return nil }
    let found = staged[low]
    staged[low].file = 0
    moved += 1
    // Once every entry is in place, the list is let go.
    if moved == staged.count {
      staged = []
      moved = 0
    }
    return found
  }

  /// Removes the folder and everything still in it.
  func remove() {
    destination.removePrivateFolder(name, handle: handle)
  }
}
