import ReferenceArchive
import ReferenceMerge

/// Why a review report could not be written. Each case's text names the file.
public enum ReviewError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A file of the report could not be read or written.
  case io(operation: String, path: String, message: String)
  /// A file could not be written or read by the file system's atomic writes.
  case archive(ArchiveError)
  /// The images the report shows could not be read from the merge's sources or destination.
  case merge(MergeError)

  public var description: String {
    switch self {
    case .io(let operation, let path, let message):
      ArchiveError.io(operation: operation, path: path, message: message).description
    case .archive(let error): error.description
    case .merge(let error): error.description
    }
  }

  /// Runs `body`, which reads or writes files, with its error as the review's.
  static func catching<Value>(_ body: () throws(ArchiveError) -> Value) throws(ReviewError)
    -> Value
  {
    do { return try body() } catch { throw .archive(error) }
  }

  /// Runs `body`, which reads the merge's images, with its error as the review's.
  static func catching<Value>(_ body: () throws(MergeError) -> Value) throws(ReviewError) -> Value {
    do { return try body() } catch { throw .merge(error) }
  }
}
