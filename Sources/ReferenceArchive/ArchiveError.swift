/// Why an archive could not be written or read.
public enum ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
  /// libarchive failed; `operation` says what was being done to which file.
  case libarchive(operation: String, path: String, message: String)
  /// A file could not be read or written.
  case io(operation: String, path: String, message: String)
  /// An entry breaks a safety rule and was refused.
  case refusedEntry(source: String, entry: String, reason: String)
  /// The archive is larger than the limits allow.
  case tooLarge(source: String, entry: String?, reason: String)
  /// The file starts as a zip but ends before the zip's end record: a download or copy that
  /// was cut short. `size` is its length in bytes.
  case truncatedArchive(path: String, size: Int)
  /// The file is not a zip at all (empty, a web page saved in its place, another format);
  /// `start` describes its first bytes.
  case notAZipArchive(path: String, size: Int, start: String)

  public var description: String {
    switch self {
    case .libarchive(let operation, let path, let message):
      return "\(path): \(operation) failed: \(message)"
    case .io(let operation, let path, let message):
      return "\(path): could not \(operation): \(message)"
    case .refusedEntry(let source, let entry, let reason):
      return "\(EntryPath.escaped(source)): refused entry '\(EntryPath.escaped(entry))': \(reason)"
    case .tooLarge(let source, let entry, let reason):
      let entry = entry.map { ": entry '\(EntryPath.escaped($0))'" } ?? ""
      return "\(EntryPath.escaped(source))\(entry): too large: \(reason)"
    case .truncatedArchive(let path, let size):
      return "\(EntryPath.escaped(path)) is truncated (\(size) bytes; its end record is missing): "
        + "download it again"
    case .notAZipArchive(let path, let size, let start):
      let what = size == 0 ? "it is empty" : "\(size) bytes, \(start)"
      return "\(EntryPath.escaped(path)) is not a zip archive (\(what)): download it again"
    }
  }
}
