/// The rules an archive entry's path must follow before anything is written for it.
package enum EntryPath {
  /// Checks a path from an archive, a folder source or a manifest record.
  /// - Returns: nil when the path is safe, else the reason it is refused.
  package static func validate(_ path: String) -> String? {
    // On UTF-8 bytes: merges check every path of every source and of the destination, and
    // Character-level counting and splitting cost more than the rest of an up-to-date merge.
    let bytes = path.utf8
    guard let first = bytes.first else { return "the path is empty" }
    if first == UInt8(ascii: "/") || first == UInt8(ascii: "\\") { return "the path is absolute" }
    if bytes.contains(UInt8(ascii: "\\")) { return "the path contains a backslash" }
    if bytes.contains(0) { return "the path contains a NUL byte" }
    // Paths end up in terminals, logs and the review page, where escape sequences act.
    if hasControlCharacter(bytes) { return "the path contains control characters" }
    if bytes.count > 1024 && path.count > 1024 { return "the path is longer than 1024 characters" }
    let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    let dot = UInt8(ascii: ".")
    if components.contains(where: { $0.count == 2 && $0.allSatisfy { $0 == dot } }) {
      return "the path climbs out with '..'"
    }
    if components.contains(where: { $0.isEmpty || ($0.count == 1 && $0.first == dot) }) {
      return "the path has empty or '.' components"
    }
    if let drive = components.first, drive.last == UInt8(ascii: ":"),
      Substring(drive).count == 2
    {
      return "the path starts with a drive letter"
    }
    return nil
  }

  /// C0 and DEL as single bytes; C1 (U+0080–U+009F) as its UTF-8 form, 0xC2 0x80–0x9F.
  private static func hasControlCharacter(_ bytes: String.UTF8View) -> Bool {
    var afterC2 = false
    for byte in bytes {
      if byte < 0x20 || byte == 0x7F || (afterC2 && (0x80...0x9F).contains(byte)) { return true }
      afterC2 = byte == 0xC2
    }
    return false
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
        text += hex(UInt8(scalar.value))
      } else {
        text.unicodeScalars.append(scalar)
      }
    }
    return text
  }

  /// A name read as raw bytes, as a string; nil unless the bytes are valid UTF-8 (decoding
  /// would replace invalid bytes with U+FFFD, a name that is in no archive).
  package static func decoded(_ bytes: some Collection<UInt8>) -> String? {
    let name = String(decoding: bytes, as: UTF8.self)
    return name.utf8.elementsEqual(bytes) ? name : nil
  }

  /// Raw name bytes for a message: valid UTF-8 as text, every other byte and control
  /// characters as `\xNN`, so `caf\xe9.png` shows what the archive holds.
  package static func escaped(bytes: [UInt8]) -> String {
    var text = ""
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var position = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        let scalar = Unicode.UTF8.decode(encoded)
        if isControl(scalar) {
          text += hex(UInt8(scalar.value))
        } else {
          text.unicodeScalars.append(scalar)
        }
        position += encoded.count
      case .error(let length):
        text += bytes[position..<position + length].map(hex).joined()
        position += length
      case .emptyInput:
        return text
      }
    }
  }

  private static func hex(_ byte: UInt8) -> String {
    let hex = String(byte, radix: 16)
    return "\\x" + (hex.count < 2 ? "0" + hex : hex)
  }
}
