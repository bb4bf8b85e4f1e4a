import ReferenceArchive

/// The rules an attachment's name follows before it is compared with a file name.
enum AttachmentName {
  /// Why a name cannot be used, or nil: it is empty, climbs, is absolute, or holds a
  /// separator or control character.
  static func problem(_ name: String) -> String? {
    if name.isEmpty { return "its name is empty" }
    if name.hasPrefix("/") || name.hasPrefix("\\") { return "its name is absolute" }
    if name == "." || name == ".." || name.contains("/") || name.contains("\\") {
      return "its name climbs out or holds a folder separator (never used as a path)"
    }
    if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
      return "its name holds control characters"
    }
    return nil
  }
}

/// Names in messages, with control characters escaped.
enum EntryPathText {
  static func escaped(_ text: String) -> String { EntryPath.escaped(text) }
}
