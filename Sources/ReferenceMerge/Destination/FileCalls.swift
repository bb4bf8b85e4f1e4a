import CSystemCalls
import Foundation
import ReferenceArchive

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The system calls `Destination` makes, and nothing else touches the destination: one seam,
/// so that a full disk or a folder swapped for a symbolic link mid-merge can be played in a
/// test by replacing one call. Each call returns what the C call returns and sets `errno`.
package struct FileCalls: Sendable {
  /// `openat(2)`.
  package var openAt: @Sendable (_ folder: Int32, _ name: String, _ flags: Int32) -> Int32
  /// `openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`; fails with `ENOSYS` where the
  /// kernel lacks it.
  package var openBeneath: @Sendable (_ root: Int32, _ path: String, _ flags: Int32) -> Int32
  /// `mkdirat(2)`.
  package var makeFolderAt: @Sendable (_ folder: Int32, _ name: String) -> Int32
  /// `renameat(2)`.
  package var renameAt:
    @Sendable (_ fromFolder: Int32, _ from: String, _ toFolder: Int32, _ to: String) -> Int32
  /// `unlinkat(2)`; `removesFolder` passes `AT_REMOVEDIR`.
  package var unlinkAt: @Sendable (_ folder: Int32, _ name: String, _ removesFolder: Bool) -> Int32
  /// `fstatat(2)` with `AT_SYMLINK_NOFOLLOW`.
  package var statAt: @Sendable (_ folder: Int32, _ name: String) -> FileStatus?
  /// `fstat(2)`.
  package var statHandle: @Sendable (_ handle: Int32) -> FileStatus?
  /// `read(2)`.
  package var read: @Sendable (_ handle: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int
  /// `write(2)`.
  package var write: @Sendable (_ handle: Int32, _ buffer: UnsafeRawBufferPointer) -> Int
  /// `pread(2)`.
  package var readAt:
    @Sendable (_ handle: Int32, _ buffer: UnsafeMutableRawBufferPointer, _ offset: Int) -> Int
  /// `pwrite(2)`.
  package var writeAt:
    @Sendable (_ handle: Int32, _ buffer: UnsafeRawBufferPointer, _ offset: Int) -> Int
  /// `close(2)`.
  package var close: @Sendable (_ handle: Int32) -> Int32
  /// The entries of an open folder with their types (`fdopendir(3)` on a duplicate handle),
  /// without `.` and `..`; nil when it cannot be listed.
  package var list: @Sendable (_ folder: Int32) -> [(name: String, kind: FileStatus.Kind?)]?

  /// The real calls.
  package static let system = FileCalls(
    openAt: { folder, name, flags in
      name.withCString { systemOpenAt(folder, $0, flags | O_CLOEXEC, 0o644) }
    },
    openBeneath: { root, path, flags in
      path.withCString { ri_open_beneath(root, $0, flags | O_CLOEXEC) }
    },
    makeFolderAt: { folder, name in name.withCString { mkdirat(folder, $0, 0o755) } },
    renameAt: { fromFolder, from, toFolder, to in
      from.withCString { from in to.withCString { renameat(fromFolder, from, toFolder, $0) } }
    },
    unlinkAt: { folder, name, removesFolder in
      name.withCString { unlinkat(folder, $0, removesFolder ? AT_REMOVEDIR : 0) }
    },
    statAt: { folder, name in
      var info = stat()
      let status = name.withCString { fstatat(folder, $0, &info, AT_SYMLINK_NOFOLLOW) }
      return status == 0 ? FileStatus(info) : nil
    },
    statHandle: { handle in
      var info = stat()
      return fstat(handle, &info) == 0 ? FileStatus(info) : nil
    },
    read: { handle, buffer in Foundation.read(handle, buffer.baseAddress, buffer.count) },
    write: { handle, buffer in Foundation.write(handle, buffer.baseAddress, buffer.count) },
    readAt: { handle, buffer, offset in
      pread(handle, buffer.baseAddress, buffer.count, off_t(offset))
    },
    writeAt: { handle, buffer, offset in
      pwrite(handle, buffer.baseAddress, buffer.count, off_t(offset))
    },
    close: { Foundation.close($0) },
    list: { folder in listFolder(folder) })
}

extension FileCalls {
  /// Reads `size` bytes from an open file, retrying interrupted and short reads.
  /// - Returns: The bytes (fewer when the file is shorter), or nil when a read fails.
  func readAll(_ handle: Int32, size: Int) -> [UInt8]? {
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
      let result = FileSystem.readAll(into: UnsafeMutableRawBufferPointer(buffer)) { rest, _ in
        self.read(handle, rest)
      }
      count = result.count
      failed = result.failure != nil
    }
    return failed ? nil : bytes
  }

  /// Fills a buffer from an open file at an offset, retrying interrupted and short reads.
  /// - Returns: The bytes read (fewer at the file's end), or nil when a read fails.
  func readAll(_ handle: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int)
    -> Int?
  {
    let result = FileSystem.readAll(into: buffer) { rest, done in
      readAt(handle, rest, offset + done)
    }
    return result.failure == nil ? result.count : nil
  }

  /// Writes every byte to an open file at an offset, retrying interrupted and short writes.
  /// - Returns: nil on success, else the `errno` of the failure.
  func writeAll(_ bytes: UnsafeRawBufferPointer, to handle: Int32, at offset: Int) -> Int32? {
    var done = 0
    return FileSystem.writeAll(bytes) { rest in
      let written = writeAt(handle, rest, offset + done)
      if written > 0 { done += written }
      return written
    }
  }

  /// Writes every byte to an open file, retrying interrupted and short writes.
  /// - Returns: nil on success, else the `errno` of the failure (`ENOSPC` when nothing more
  ///   could be written).
  func writeAll(_ bytes: [UInt8], to handle: Int32) -> Int32? {
    bytes.withUnsafeBytes { buffer in
      FileSystem.writeAll(buffer) { write(handle, $0) }
    }
  }
}

/// `openat(2)` with a mode, which Swift imports without its variadic argument.
private func systemOpenAt(
  _ folder: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t
) -> Int32 {
  openat(folder, name, flags, mode)
}

/// Where `d_name` starts in a `dirent` record.
private let direntNameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!

private func listFolder(_ folder: Int32) -> [(name: String, kind: FileStatus.Kind?)]? {
  // fdopendir takes ownership of its handle, so it gets a duplicate: the cached one stays.
  let duplicate = dup(folder)
  guard duplicate >= 0 else { return nil }
  guard let directory = fdopendir(duplicate) else {
    Foundation.close(duplicate)
    return nil
  }
  defer { closedir(directory) }
  rewinddir(directory)
  var entries: [(name: String, kind: FileStatus.Kind?)] = []
  while let entry = readdir(directory) {
    // The name is read in place: readdir's record is only as long as its name, so copying the
    // whole 256-byte d_name field would read past the end of the last record of its buffer.
    let name = String(
      cString: UnsafeRawPointer(entry).advanced(by: direntNameOffset)
        .assumingMemoryBound(to: CChar.self))
    if name == "." || name == ".." { continue }
    let kind: FileStatus.Kind? =
      switch Int32(entry.pointee.d_type) {
      case Int32(DT_REG): .regularFile
      case Int32(DT_DIR): .folder
      case Int32(DT_LNK): .symbolicLink
      case Int32(DT_UNKNOWN): nil
      default: .other
      }
    entries.append((name, kind))
  }
  return entries
}

/// What `fstat(2)` says about a file, in the terms a merge needs.
package struct FileStatus: Sendable, Hashable {
  /// The kinds a merge tells apart.
  package enum Kind: Sendable, Hashable {
    case regularFile, folder, symbolicLink, other
  }

  package var kind: Kind
  package var device: UInt64
  package var inode: UInt64
  package var size: Int
  /// Modification time in nanoseconds since 1970.
  package var modified: Int64

  package init(kind: Kind, device: UInt64, inode: UInt64, size: Int, modified: Int64) {
    self.kind = kind
    self.device = device
    self.inode = inode
    self.size = size
    self.modified = modified
  }

  init(_ info: stat) {
    switch info.st_mode & S_IFMT {
    case S_IFREG: kind = .regularFile
    case S_IFDIR: kind = .folder
    case S_IFLNK: kind = .symbolicLink
    default: kind = .other
    }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int(info.st_size)
    #if canImport(Darwin)
      modified =
        Int64(info.st_mtimespec.tv_sec) * 1_000_000_000
        + Int64(info.st_mtimespec.tv_nsec)
    #else
      modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    #endif
  }
}
