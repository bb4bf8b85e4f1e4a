/// The rules an archive entry's path must follow before anything is written for it.
package enum EntryPath {
  /// Checks a path from an archive or folder source.
  /// - Returns: The path, unchanged, when it is safe.
  /// - Throws: The reason it is refused.
  package static func validate(_ path: String) -> String? {
    if path.isEmpty { return "the path is empty" }
    if path.hasPrefix("/") || path.hasPrefix("\\") { return "the path is absolute" }
    if path.contains("\\") { return "the path contains a backslash" }
    if path.utf8.contains(0) { return "the path contains a NUL byte" }
    if path.count > 1024 { return "the path is longer than 1024 characters" }
    let components = path.split(separator: "/", omittingEmptySubsequences: false)
    if components.contains("..") { return "the path climbs out with '..'" }
    if components.contains(where: { $0.isEmpty || $0 == "." }) {
      return "the path has empty or '.' components"
    }
    if let first = components.first, first.count == 2, first.hasSuffix(":") {
      return "the path starts with a drive letter"
    }
    return nil
  }
}
