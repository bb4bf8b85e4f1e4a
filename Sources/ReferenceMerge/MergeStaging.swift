import Foundation
import ReferenceArchive

/// A hidden folder inside the destination where entries that will probably be written are put
/// while the sources are read, so applying the plan is a rename instead of a second read of
/// every archive. Nothing in it is visible at a reference path; it is removed when the merge
/// ends, and a merge killed before that leaves it to be removed by the next one.
final class MergeStaging {
  let folder: URL
  private var staged: [StagedKey: URL] = [:]
  private var disabled = false

  struct StagedKey: Hashable {
    var sourceIndex: Int
    var path: String
  }

  /// The name prefix of staging folders; it starts like every temporary file of this package.
  static let prefix = FileSystem.temporaryPrefix + "staging-"

  /// Creates the folder, first removing any left by an interrupted merge.
  init(destination: URL) throws(ArchiveError) {
    Self.removeLeftovers(in: destination)
    folder = destination.appendingPathComponent(
      "\(Self.prefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileSystem.createFolder(folder)
  }

  /// Keeps an entry's bytes for a later rename into place. Staging is an optimisation: when it
  /// fails (a full disk), staging stops and the entry is read again when the plan is applied,
  /// where a write failure is reported as such.
  func stage(_ bytes: [UInt8], sourceIndex: Int, path: String) {
    guard !disabled else { return }
    let url = folder.appendingPathComponent("\(sourceIndex)").appendingPathComponent(path)
    do {
      // No temporary name inside the staging folder: it is private, and removed whole.
      try FileSystem.createFolder(url.deletingLastPathComponent())
      try FileSystem.write(bytes, to: url)
      staged[StagedKey(sourceIndex: sourceIndex, path: path)] = url
    } catch {
      disabled = true
      try? FileManager.default.removeItem(at: url)
    }
  }

  /// The staged file of an entry, if it was staged.
  func stagedFile(sourceIndex: Int, path: String) -> URL? {
    staged[StagedKey(sourceIndex: sourceIndex, path: path)]
  }

  /// Removes the folder and everything still in it.
  func remove() {
    try? FileManager.default.removeItem(at: folder)
  }

  static func removeLeftovers(in destination: URL) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: destination.path)) ?? []
    for name in names where name.hasPrefix(prefix) {
      try? FileManager.default.removeItem(at: destination.appendingPathComponent(name))
    }
  }
}
