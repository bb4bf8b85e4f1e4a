/// The rules an archive entry's path must follow before anything is written for it.
package enum EntryPath {
  /// Checks a path from an archive, a folder source or a manifest record.
  /// - Returns: nil when the path is safe, else the reason it is refused.
  package static func validate(_ path: String) -> String? {
    // On UTF-8 bytes, in one pass: merges check every path of every source and of the
    // destination, so counting Characters, splitting, or a pass per rule would show in an
    // up-to-date merge's time.
    let bytes = path.utf8
    guard let first = bytes.first else { return "the path is empty" }
    if first == UInt8(ascii: "/") || first == UInt8(ascii: "\\") { return "the path is absolute" }
    var scan = PathScan()
    // Over contiguous bytes (`withUTF8` makes a bridged string's so, on a copy): the view's own
    // iterator cost half of `validate`.
    var contiguous = path
    contiguous.withUTF8 { bytes in
      for byte in bytes { scan.read(byte) }
    }
    scan.endComponent()
    if scan.backslash { return "the path contains a backslash" }
    if scan.nul { return "the path contains a NUL byte" }
    // Paths end up in terminals, logs and the review page, where escape sequences act.
    if scan.control { return "the path contains control characters" }
    if scan.length > 1024 && path.count > 1024 { return "the path is longer than 1024 characters" }
    if scan.climbs { return "the path climbs out with '..'" }
    if scan.emptyOrDot { return "the path has empty or '.' components" }
    if scan.firstEndsWithColon, Substring(bytes.prefix(scan.firstLength ?? 0)).count == 2 {
      return "the path starts with a drive letter"
    }
    return nil
  }

  /// What one pass over a path's bytes finds, for `validate`'s rules.
  private struct PathScan {
    var length = 0
    var backslash = false
    var nul = false
    var control = false
    /// A component is "..".
    var climbs = false
    /// A component is empty or ".".
    var emptyOrDot = false
    /// The first component's length in bytes, once it ended.
    var firstLength: Int?
    /// Whether the first component ends with ":", as a drive letter's does.
    var firstEndsWithColon = false
    private var afterC2 = false
    private var componentLength = 0
    private var componentDots = 0
    private var lastByte: UInt8 = 0

    mutating func read(_ byte: UInt8) {
      length += 1
      if byte == UInt8(ascii: "\\") { backslash = true }
      if byte == 0 { nul = true }
      // C0, DEL and C1 (U+0080–U+009F, written C2 80–C2 9F).
      if byte < 0x20 || byte == 0x7F || (afterC2 && (0x80...0x9F).contains(byte)) {
        control = true
      }
      afterC2 = byte == 0xC2
      if byte == UInt8(ascii: "/") {
        endComponent()
      } else {
        componentLength += 1
        if byte == UInt8(ascii: ".") { componentDots += 1 }
        lastByte = byte
      }
    }

    mutating func endComponent() {
      if componentLength == 2 && componentDots == 2 { climbs = true }
      if componentLength == 0 || (componentLength == 1 && componentDots == 1) { emptyOrDot = true }
      if firstLength == nil {
        firstLength = componentLength
        firstEndsWithColon = componentLength > 0 && lastByte == UInt8(ascii: ":")
      }
      componentLength = 0
      componentDots = 0
    }
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
    // Validated as it is decoded, in one pass: every name of every archive comes through
    // here, so a second pass comparing the result byte by byte would show in a merge's time.
    String(validating: bytes, as: UTF8.self)
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
