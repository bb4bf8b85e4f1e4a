import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceStore

/// Writing: each file atomically, under a temporary name in its own folder, renamed into place.
extension Destination {
  /// Writes a file atomically: a new temporary file in the same folder, renamed over the
  /// final name. Missing folders are created (each opened again without following links).
  /// - Throws: `MergeError` naming the path; the temporary file is removed.
  /// - Parameter digest: The bytes' SHA-256, remembered for the next run.
  package func write(_ bytes: [UInt8], to path: String, digest: SHA256Digest)
    throws(MergeError)
  {
    if storedReferences != nil { return try writePointer(for: bytes, to: path) }
    try writeFile(bytes, to: path, digest: digest)
  }

  /// Writes a file as it is; see `write(_:to:digest:)`.
  func writeFile(_ bytes: [UInt8], to path: String, digest: SHA256Digest) throws(MergeError) {
    let (folderPath, name) = Self.split(path)
    guard let folder = try folder(folderPath, create: true, for: path) else { return }
    let temporary = FileSystem.temporaryName(for: name)
    let status = try writeNew(bytes, in: folder, name: temporary, shownAs: path)
    try rename(from: folder, temporary, to: path, in: folder, name: name)
    if let status { digestCache?.remember(path, status: status, digest: digest) }
  }

  /// Writes a file atomically, given its SHA-256 as hex (computed again when it is not hex).
  package func write(_ bytes: [UInt8], to path: String, digest: String) throws(MergeError) {
    try write(bytes, to: path, digest: SHA256Digest(hex: digest) ?? SHA256Digest(of: bytes))
  }

  /// Renames a file from a private folder (the staging folder) into place.
  /// - Parameters:
  ///   - status: The file's status when it was written, if known.
  ///   - digest: Its SHA-256, remembered for the next run.
  func moveIn(
    from privateFolder: Int32, _ privateName: String, to path: String, status: FileStatus?,
    digest: SHA256Digest
  ) throws(MergeError) {
    if storedReferences != nil {
      return try movePointerIn(from: privateFolder, privateName, to: path, digest: digest)
    }
    let (folderPath, name) = Self.split(path)
    guard let folder = try folder(folderPath, create: true, for: path) else { return }
    try rename(from: privateFolder, privateName, to: path, in: folder, name: name)
    if let status { digestCache?.remember(path, status: status, digest: digest) }
  }

  func rename(
    from sourceFolder: Int32, _ sourceName: String, to path: String, in folder: Int32,
    name: String
  ) throws(MergeError) {
    guard calls.renameAt(sourceFolder, sourceName, folder, name) == 0 else {
      let code = errno
      _ = calls.unlinkAt(sourceFolder, sourceName, false)
      // The temporary name is this merge's own business: the file it was to become is named.
      throw notWritten(
        path, .write, "moving the new file into place", code,
        replacing: calls.statAt(folder, name) != nil)
    }
  }

  /// Creates a new file (never following or replacing anything) and writes bytes to it.
  /// - Parameter statusWanted: false when the caller takes the status later itself.
  /// - Returns: The file's status, when the digest cache will want it.
  @discardableResult
  func writeNew(
    _ bytes: [UInt8], in folder: Int32, name: String, shownAs path: String,
    statusWanted: Bool = true
  ) throws(MergeError) -> FileStatus? {
    let handle = calls.openAt(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW)
    guard handle >= 0 else {
      throw notWritten(path, .write, "creating the new file")
    }
    var failure = calls.writeAll(bytes, to: handle)
    // Taken before closing: the size and time stamp the digest cache keys on, at the cost of
    // one call, only for packages that keep the cache.
    let status =
      failure == nil && digestCache != nil && statusWanted ? calls.statHandle(handle) : nil
    let closed = calls.close(handle)
    if failure == nil && closed != 0 { failure = errno }
    if let failure {
      _ = calls.unlinkAt(folder, name, false)
      throw notWritten(path, .write, "writing the new file", failure)
    }
    return status
  }

  /// Deletes a file (an orphan, with `--prune`); a file already gone is not an error.
  package func remove(_ path: String, keepingPointer: Bool = false) throws(MergeError) {
    if storedReferences != nil && !keepingPointer {
      try removeFile(ReferencePointer.path(for: path))
    }
    try removeFile(path)
  }

  private func removeFile(_ path: String) throws(MergeError) {
    let (folderPath, name) = Self.split(path)
    guard let folder = try folder(folderPath, create: false, for: path) else { return }
    guard calls.unlinkAt(folder, name, false) == 0 || errno == ENOENT else {
      throw notWritten(path, .delete, "deleting the orphan", errno, replacing: true)
    }
  }

  /// Removes the temporary files an interrupted merge left in a folder.
  /// - Returns: Their package-relative paths.
  package func removeLeftovers(in folderPath: String) -> [String] {
    guard let folder = try? folder(folderPath, create: false, for: folderPath),
      let entries = calls.list(folder)
    else { return [] }
    return entries.filter { $0.name.hasPrefix(FileSystem.temporaryPrefix) && $0.kind != .folder }
      .compactMap { entry in
        calls.unlinkAt(folder, entry.name, false) == 0
          ? (folderPath.isEmpty ? entry.name : "\(folderPath)/\(entry.name)") : nil
      }
  }
}
