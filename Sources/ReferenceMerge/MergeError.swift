import ReferenceArchive
import ReferenceContracts
import ReferenceStore

/// Why a merge could not read a source or write its destination. Each case's text names the
/// file and, where there is one, the fix.
public enum MergeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A source archive could not be read, or broke a rule of the archive format.
  case archive(ArchiveError)
  /// A source's manifest cannot be read.
  case badManifest(ManifestError)
  /// A file could not be read or written: a source folder, the staging folder, a report.
  case io(operation: String, path: String, message: String)
  /// A source's entry, or a path of the destination, breaks a safety rule and was refused.
  case refusedEntry(source: String, entry: String, reason: String)
  /// A file of the destination could not be written or deleted.
  case notWritten(WriteFailure)
  /// The package's reference store could not be read or written, or a pointer file is bad.
  case store(StoreError)

  public var description: String {
    switch self {
    case .archive(let error): error.description
    case .badManifest(let error): error.description
    case .io(let operation, let path, let message):
      ArchiveError.io(operation: operation, path: path, message: message).description
    case .refusedEntry(let source, let entry, let reason):
      ArchiveError.refusedEntry(source: source, entry: entry, reason: reason).description
    case .notWritten(let failure): failure.description
    case .store(let error): error.description
    }
  }

  /// Runs `body`, which reads or writes an archive or a file, with its error as a merge's.
  static func catching<Value>(_ body: () throws(ArchiveError) -> Value) throws(MergeError) -> Value
  {
    do { return try body() } catch { throw .archive(error) }
  }

  /// Runs `body`, which decodes a manifest, with its error as a merge's.
  static func catching<Value>(_ body: () throws(ManifestError) -> Value) throws(MergeError)
    -> Value
  {
    do { return try body() } catch { throw .badManifest(error) }
  }
}
