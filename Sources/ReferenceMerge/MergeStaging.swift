import Foundation
import ReferenceArchive
import ReferenceImageCore

/// A hidden folder directly below the destination root where entries that will probably be
/// written are put while the sources are read, so applying the plan is one `renameat` instead
/// of a second read of every archive. Nothing in it is visible at a reference path; it is
/// removed when the merge ends, and a merge killed before that leaves it to the next one.
/// Sources are read concurrently, so staging is thread-safe.
final class MergeStaging: @unchecked Sendable {
  // An entry's file is named after its path's key (`PathKey`), in its source's numbered
  // folder, so finding it again needs nothing kept per entry: a list of every staged entry (32
  // bytes and a 4-byte size each) would be one of the largest parts of a fleet's first
  // merge's peak.
  // Two paths of one source that share a key are both left unfound (`collided`), so they are
  // read again from their source: a shared key costs time, never a wrong file.

  /// The name prefix of staging folders; it starts like every temporary file of this package.
  static let prefix = FileSystem.temporaryPrefix + "staging-"

  let destination: Destination
  private let name: String
  private let handle: Int32
  private let lock = NSLock()
  private var sourceNumbers: [MergeSource: Int] = [:]
  /// The entries whose file another entry of the same source and key may hold.
  private var collided = Set<String>()
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
    let file = fileName(number(of: source), path)
    lock.unlock()
    do {
      try destination.writeNew(bytes, in: handle, name: file, shownAs: name, statusWanted: false)
    } catch {
      lock.lock()
      // A file of that name is another entry's: its key is this one's.
      if destination.calls.statAt(handle, file) != nil {
        collided.insert(file)
      } else {
        disabled = true
      }
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
    let file = sourceNumbers[source].map { fileName($0, path) }
    let found = file.map { !collided.contains($0) } ?? false
    lock.unlock()
    guard let file, found else { return false }
    // Its status, which the digest cache keys on, taken in this merge's own folder just
    // before the rename, which keeps it; none when the entry is not there (never staged, or
    // moved already).
    guard let status = destination.calls.statAt(handle, file), status.kind == .regularFile
    else { return false }
    try destination.moveIn(from: handle, file, to: path, status: status, digest: digest)
    return true
  }

  /// The source's number, given on first sight, and its folder made then; the caller holds
  /// `lock`. A source's entries go in a folder of their own so that no folder grows with the
  /// fleet: creating a file in a folder of hundreds of thousands costs the file system more
  /// than in one of a source's few hundred. A folder that cannot be made fails the staging of
  /// its first entry, which stops staging.
  private func number(of source: MergeSource) -> Int {
    if let known = sourceNumbers[source] { return known }
    let number = sourceNumbers.count
    sourceNumbers[source] = number
    _ = destination.calls.makeFolderAt(handle, String(number))
    return number
  }

  private func fileName(_ source: Int, _ path: String) -> String {
    "\(source)/\(String(PathKey.of(path), radix: 16))"
  }

  /// Removes the folder and everything still in it.
  func remove() {
    destination.removePrivateFolder(name, handle: handle)
  }
}
