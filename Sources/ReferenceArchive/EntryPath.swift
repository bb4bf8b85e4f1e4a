/// The rules an archive entry's path must follow before anything is written for it.
package enum EntryPath {
  /// Checks a path from an archive, a folder source or a manifest record.
  /// - Returns: nil when the path is safe, else the reason it is refused.
  package static func validate(_ path: String) -> String? {
    if path.isEmpty { return "the path is empty" }
    if path.hasPrefix("/") || path.hasPrefix("\\") { return "the path is absolute" }
    if path.contains("\\") { return "the path contains a backslash" }
    if path.utf8.contains(0) { return "the path contains a NUL byte" }
    // Paths end up in terminals, logs and the review page, where escape sequences act.
    if path.unicodeScalars.contains(where: isControl) {
      return "the path contains control characters"
    }
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

  /// C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F).
  package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// The path with control characters written as `\xNN`, so a message that names it cannot
  /// move the cursor, clear a terminal or hide text.
  package static func escaped(_ path: String) -> String {
    guard path.unicodeScalars.contains(where: isControl) else { return path }
    var text = ""
    for scalar in path.unicodeScalars {
      if isControl(scalar) {
        let hex = String(scalar.value, radix: 16)
        text += "\\x" + (hex.count < 2 ? "0" + hex : hex)
      } else {
        text.unicodeScalars.append(scalar)
      }
    }
    return text
  }
}
