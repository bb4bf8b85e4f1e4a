import Foundation
import ReferenceImageCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file operations the archive and merge code rely on, with errors that name the path.
public enum FileSystem {
  /// Reads a whole file.
  /// - Parameter url: The file.
  /// - Returns: Its bytes.
  /// - Throws: `ArchiveError.io` naming the file.
  public static func read(_ url: URL) throws(ArchiveError) -> [UInt8] {
    // open/fstat/read straight into the array: Data(contentsOf:) costs an extra copy, and
    // a thrown NSError per missing file, which merges probe thousands of times.
    let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw ioError("read", url) }
    return try contents(of: descriptor, url)
  }

  /// Reads a whole file, or answers nil when nothing is at its path: one `open` where a
  /// check for the file and a read would ask twice (every assertion reads its reference).
  /// - Parameter url: The file.
  /// - Returns: Its bytes, or nil when the path does not exist.
  /// - Throws: `ArchiveError.io` naming the file, for every other failure.
  public static func readIfPresent(_ url: URL) throws(ArchiveError) -> [UInt8]? {
    let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      // What `FileManager.fileExists` answers false for: nothing there, or a folder in the
      // path that is a file.
      if errno == ENOENT || errno == ENOTDIR { return nil }
      throw ioError("read", url)
    }
    return try contents(of: descriptor, url)
  }

  /// The bytes of an open regular file; closes it.
  private static func contents(of descriptor: Int32, _ url: URL) throws(ArchiveError) -> [UInt8] {
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw ioError("read", url) }
    guard (status.st_mode & S_IFMT) == S_IFREG else {
      throw .io(operation: "read", path: url.path, message: "not a regular file")
    }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
    let (count, failure) = bytes.withUnsafeMutableBytes { buffer in
      readAll(into: buffer) { rest, _ in Foundation.read(descriptor, rest.baseAddress, rest.count) }
    }
    if let failure {
      throw .io(operation: "read", path: url.path, message: String(cString: strerror(failure)))
    }
    if count < bytes.count { bytes.removeLast(bytes.count - count) }
    return bytes
  }

  /// SHA-256 of a file's bytes, read in 1 MiB pieces so a large archive is never held whole.
  /// - Parameter url: The file.
  /// - Returns: 64 lowercase hex digits.
  /// - Throws: `ArchiveError.io` naming the file.
  public static func sha256(of url: URL) throws(ArchiveError) -> String {
    let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw ioError("read", url) }
    defer { close(descriptor) }
    let hasher = SHA256.Hasher()
    // Not zeroed: a fleet's merge hashes thousands of archives of a few hundred KB, so
    // clearing 1 MiB for each would cost more than reading most of them.
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let count = retryOnInterrupt { Foundation.read(descriptor, buffer.baseAddress, buffer.count) }
      guard count >= 0 else { throw ioError("read", url) }
      if count == 0 { break }
      hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
    return SHA256.hexString(hasher.finish())
  }

  /// Whether a regular file exists at a path (not following a final symbolic link).
  package static func isRegularFile(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
  }

  /// Whether a folder exists at a path (not following a final symbolic link). A walk's
  /// `fileAttributes` would tell the same, after looking up the file's owner and group by name:
  /// a read of `/etc/passwd` and `/etc/group` for every file walked.
  package static func isFolder(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
  }

  private static func ioError(_ operation: String, _ url: URL) -> ArchiveError {
    .io(operation: operation, path: url.path, message: String(cString: strerror(errno)))
  }

  /// Writes bytes to a temporary file beside `url` and renames it over `url`, so a reader sees
  /// the old file or the new one, never a mix, even if the process is killed. There is no
  /// `fsync`: the guarantee covers killed processes, not power loss, and merging thousands of
  /// files would otherwise wait on the disk for each.
  /// - Parameters:
  ///   - bytes: The new contents.
  ///   - url: The final path; missing parent folders are created.
  /// - Throws: `ArchiveError.io` naming the file; the temporary file is removed.
  public static func writeAtomically(_ bytes: [UInt8], to url: URL) throws(ArchiveError) {
    let folder = url.deletingLastPathComponent()
    try createFolder(folder)
    let temporary = folder.appendingPathComponent(temporaryName(for: url.lastPathComponent))
    do {
      try writeFile(bytes, to: temporary)
      try rename(temporary, to: url)
    } catch {
      unlink(temporary.path)
      throw error
    }
  }

  /// The name prefix of every temporary file this package writes, so leftovers can be found.
  public static let temporaryPrefix = ".refimg-tmp-"

  /// A name for a file that becomes `name` once written: the prefix, this process's ID, a
  /// random number, and `name`.
  package static func temporaryName(for name: String) -> String {
    "\(temporaryPrefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(name)"
  }

  /// The process that wrote a `temporaryName(for: name)`; nil for any other file name.
  package static func writingProcess(ofTemporary temporary: String, for name: String) -> pid_t? {
    guard temporary.hasPrefix(temporaryPrefix), temporary.hasSuffix("-" + name) else {
      return nil
    }
    return pid_t(temporary.dropFirst(temporaryPrefix.count).prefix { $0 != "-" })
  }

  /// Creates a folder and its parents when missing.
  /// - Throws: `ArchiveError.io` naming the folder.
  public static func createFolder(_ url: URL) throws(ArchiveError) {
    // Parallel workers create and remove sibling folders under one parent (the last worker out
    // removes the shared `.staging` folder), so a parent can vanish between two steps of a
    // `mkdir -p`: when one does, start again from the top. Each try costs a few system calls;
    // the bound only stops a loop against a tree that is being deleted for good.
    var code: Int32 = ENOENT
    for _ in 0..<1000 where code == ENOENT {
      code = makeFolders(url.path)
    }
    guard code == 0 else {
      throw .io(
        operation: "create the folder", path: url.path, message: String(cString: strerror(code)))
    }
  }

  /// `mkdir -p`, one `mkdir` per missing component. Returns 0 or the failing call's errno.
  private static func makeFolders(_ path: String) -> Int32 {
    var status = stat()
    if stat(path, &status) == 0 {
      return (status.st_mode & S_IFMT) == S_IFDIR ? 0 : ENOTDIR
    }
    let parent = (path as NSString).deletingLastPathComponent
    if !parent.isEmpty && parent != path {
      let code = makeFolders(parent)
      if code != 0 { return code }
    }
    return mkdir(path, 0o755) == 0 || errno == EEXIST ? 0 : errno
  }

  /// Renames a file with `rename(2)`, atomically replacing the destination.
  /// - Throws: `ArchiveError.io` naming both paths.
  public static func rename(_ source: URL, to destination: URL) throws(ArchiveError) {
    guard Foundation.rename(source.path, destination.path) == 0 else {
      throw .io(
        operation: "rename \(source.lastPathComponent) into place", path: destination.path,
        message: String(cString: strerror(errno)))
    }
  }

  /// Writes bytes to a new or truncated file, not atomically (for private folders).
  package static func write(_ bytes: [UInt8], to url: URL) throws(ArchiveError) {
    try writeFile(bytes, to: url)
  }

  private static func writeFile(_ bytes: [UInt8], to url: URL) throws(ArchiveError) {
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw .io(operation: "create", path: url.path, message: String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    let failure = bytes.withUnsafeBytes { buffer in
      writeAll(buffer) { Foundation.write(descriptor, $0.baseAddress, $0.count) }
    }
    if let failure {
      throw .io(operation: "write", path: url.path, message: String(cString: strerror(failure)))
    }
  }

  package static func reason(_ error: Error) -> String {
    if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] {
      return "\(underlying)"
    }
    return (error as NSError).localizedDescription
  }

  /// The PNG files named by `paths`: each file as given, and every `.png` below each folder,
  /// skipping hidden folders (`.build`, `.git`), sorted.
  /// - Parameter paths: Files and folders.
  /// - Returns: The PNG files.
  /// - Throws: `ArchiveError.io` naming a path that does not exist.
  public static func pngFiles(in paths: [URL]) throws(ArchiveError) -> [URL] {
    try files(in: paths) { $0.pathExtension.lowercased() == "png" }
  }

  /// Each file `paths` names as given, and every regular file below each folder that `wanted`
  /// accepts, skipping hidden folders (`.build`, `.git`), sorted.
  /// - Throws: `ArchiveError.io` naming a path that does not exist.
  public static func files(in paths: [URL], where wanted: (URL) -> Bool) throws(ArchiveError)
    -> [URL]
  {
    var files: [URL] = []
    for path in paths {
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isFolder) else {
        throw .io(operation: "find", path: path.path, message: "no such file or folder")
      }
      guard isFolder.boolValue else {
        files.append(path)
        continue
      }
      let enumerator = FileManager.default.enumerator(
        at: path, includingPropertiesForKeys: [.isRegularFileKey],
        options: [.skipsHiddenFiles])
      while let url = enumerator?.nextObject() as? URL {
        let isRegular = (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile
        if isRegular == true, wanted(url) { files.append(url) }
      }
    }
    return files.sorted { $0.path < $1.path }
  }
}
