/// A path's components as the file system sees them.
enum PathComponents {
  /// The components of a path or of a test identifier (`Class/testName()`), split at each `/`
  /// byte as the file system splits a path; empty ones are omitted. Split by `Character`, a
  /// `/` followed by a combining mark is one character and no separator.
  static func of(_ path: String) -> [String] {
    path.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
  }
}
