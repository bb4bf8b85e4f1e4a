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

/// libarchive alone, as `ZipReader` used it before checking CRCs itself: the oracle that
/// `ZipCRCTests` and the archive fuzz target hold `ZipReader`'s verdicts to.
package enum LibArchiveAlone {
  /// Whether libarchive, with its own CRC check, reads every entry's data without error.
  package static func readsEveryEntry(_ zip: [UInt8]) -> Bool {
    guard let archive = archive_read_new() else { return false }
    defer { archive_read_free(archive) }
    archive_read_support_format_zip_seekable(archive)
    return zip.withUnsafeBytes { buffer in
      guard archive_read_open_memory(archive, buffer.baseAddress, buffer.count) == ARCHIVE_OK
      else { return false }
      var entry: OpaquePointer?
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      while true {
        let status = archive_read_next_header(archive, &entry)
        if status == ARCHIVE_EOF { return true }
        guard status >= ARCHIVE_WARN else { return false }
        while true {
          let read = chunk.withUnsafeMutableBytes {
            archive_read_data(archive, $0.baseAddress, $0.count)
          }
          if read == 0 { break }
          guard read > 0 else { return false }
        }
      }
    }
  }
}
