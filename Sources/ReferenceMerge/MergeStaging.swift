import Foundation
import ReferenceArchive
import ReferenceImageCore

/// A hidden folder directly below the destination root where entries that will probably be
/// written are put while the sources are read, so applying the plan is one `renameat` instead
/// of a second read of every archive. Nothing in it is visible at a reference path; it is
/// removed when the merge ends, and a merge killed before that leaves it to the next one.
/// Sources are read concurrently, so staging is thread-safe.
final class MergeStaging: @unchecked Sendable {
  struct StagedKey: Hashable {
    var source: MergeSource
    var path: String
  }

  struct Staged {
    var name: String
    var status: FileStatus?
    var digest: SHA256Digest
  }

  /// The name prefix of staging folders; it starts like every temporary file of this package.
  static let prefix = FileSystem.temporaryPrefix + "staging-"

  let destination: Destination
  private let name: String
  private let handle: Int32
  private let lock = NSLock()
  private var staged: [StagedKey: Staged] = [:]
  private var count = 0
  private var disabled = false

  /// Creates the folder, first removing any left by an interrupted merge.
  init(destination: Destination) throws(ArchiveError) {
    self.destination = destination
    destination.removePrivateFolders(prefix: Self.prefix)
    name = "\(Self.prefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    handle = try destination.makePrivateFolder(name)
  }

  /// Keeps an entry's bytes for a later rename into place. Staging is an optimisation: when it
  /// fails (a full disk), staging stops and the entry is read again when the plan is applied,
  /// where a write failure is reported as such.
  func stage(_ bytes: [UInt8], digest: SHA256Digest, source: MergeSource, path: String) {
    lock.lock()
    guard !disabled else {
      lock.unlock()
      return
    }
    count += 1
    // Flat, numbered names: no folders to create, no paths to check.
    let file = "\(count)"
    lock.unlock()
    do {
      let status = try destination.writeNew(bytes, in: handle, name: file, shownAs: name)
      lock.lock()
      staged[StagedKey(source: source, path: path)] = Staged(
        name: file, status: status, digest: digest)
      lock.unlock()
    } catch {
      lock.lock()
      disabled = true
      lock.unlock()
    }
  }

  /// Renames an entry's staged file into place.
  /// - Returns: false when the entry was not staged.
  func moveIntoPlace(source: MergeSource, path: String) throws(ArchiveError) -> Bool {
    lock.lock()
    let file = staged.removeValue(forKey: StagedKey(source: source, path: path))
    // Removing keeps the table's capacity; once every entry is in place, it is let go.
    if staged.isEmpty { staged = [:] }
    lock.unlock()
    guard let file else { return false }
    try destination.moveIn(
      from: handle, file.name, to: path, status: file.status, digest: file.digest)
    return true
  }

  /// Removes the folder and everything still in it.
  func remove() {
    destination.removePrivateFolder(name, handle: handle)
  }
}
