import CArchive

/// The single owner of a libarchive handle (`archive_read_new` or `archive_write_new`), freed in
/// `deinit` with the matching `_free` call.
final class LibArchiveHandle {
  enum Direction { case read, write }

  let pointer: OpaquePointer
  let direction: Direction
  /// The file or source name used in error messages.
  let name: String

  init(_ direction: Direction, name: String) throws(ArchiveError) {
    let created = direction == .read ? archive_read_new() : archive_write_new()
    guard let created else {
      throw .libarchive(operation: "creating a handle", path: name, message: "out of memory")
    }
    self.pointer = created
    self.direction = direction
    self.name = name
  }

  deinit {
    switch direction {
    case .read: archive_read_free(pointer)
    case .write: archive_write_free(pointer)
    }
  }

  /// Turns a libarchive status into a Swift error. `ARCHIVE_WARN` is not a failure; anything
  /// below it is.
  @discardableResult
  func check(_ status: Int32, _ operation: String) throws(ArchiveError) -> Int32 {
    guard status >= ARCHIVE_WARN else { throw error(operation) }
    return status
  }

  /// The error libarchive recorded for the last call.
  func error(_ operation: String) -> ArchiveError {
    let message = archive_error_string(pointer).map { String(cString: $0) } ?? "unknown error"
    return .libarchive(operation: operation, path: name, message: message)
  }
}

/// The single owner of an `archive_entry`.
final class LibArchiveEntry {
  let pointer: OpaquePointer

  init() throws(ArchiveError) {
    guard let created = archive_entry_new() else {
      throw .libarchive(operation: "creating an entry", path: "", message: "out of memory")
    }
    pointer = created
  }

  deinit { archive_entry_free(pointer) }
}
