// Strings as `JSONDecoder` reads them: scanned for their end, checked, and unescaped.
extension StrictJSONReader {
  /// Steps past a string, checking it as `string()` does: its raw bytes' range when they are
  /// plain ASCII (no escapes), which needs no `String` made.
  mutating func skipString() throws(Unsure) -> Range<Int>? {
    let scanned = try scanString()
    guard scanned.isPlainASCII else {
      _ = try Self.validString(UnsafeRawBufferPointer(rebasing: bytes[scanned.range]))
      return nil
    }
    return scanned.range
  }

  /// Steps past a string, returning its raw bytes (between the quotes) and whether they are
  /// plain ASCII; control characters are refused.
  mutating func scanString() throws(Unsure) -> (range: Range<Int>, isPlainASCII: Bool) {
    try expect(UInt8(ascii: "\""))
    let start = index
    var isPlainASCII = true
    while true {
      // Digests and paths are long runs of plain bytes: eight are checked at a time.
      while index + 8 <= bytes.count,
        !Self.holdsSpecialByte(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      {
        index += 8
      }
      guard index < bytes.count else { throw Unsure() }
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") { break }
      if byte == UInt8(ascii: "\\") {
        isPlainASCII = false
        index += 2
        continue
      }
      guard byte >= 0x20 else { throw Unsure() }
      if byte >= 0x80 { isPlainASCII = false }
      index += 1
    }
    let range = start..<index
    index += 1
    return (range, isPlainASCII)
  }

  /// A key with escapes, unescaped; one beyond ASCII is left to `JSONDecoder` (`nextKey`).
  static func asciiKey(_ raw: UnsafeRawBufferPointer) throws(Unsure) -> String {
    let key = try validString(raw)
    guard key.utf8.allSatisfy({ $0 < 0x80 }) else { throw Unsure() }
    return key
  }

  /// Whether any of eight bytes ends a string's plain run: a quote, a backslash, a control
  /// character or a byte beyond ASCII. (Each test is exact for "some byte is": a zero byte
  /// of `word ^ repeated(c)` is a byte equal to `c`.)
  private static func holdsSpecialByte(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    func holdsZero(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
    let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
    let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
    let belowSpace = (word &- ones &* 0x20) & ~word & highs
    return word & highs != 0 || belowSpace != 0 || holdsZero(quotes) || holdsZero(backslashes)
  }

  /// The string of raw bytes with escapes or non-ASCII bytes: unescaped, and valid UTF-8.
  static func validString(_ raw: UnsafeRawBufferPointer) throws(Unsure) -> String {
    let text = raw.contains(UInt8(ascii: "\\")) ? try unescaped(raw) : Array(raw)
    guard let string = String(validating: text, as: UTF8.self) else { throw Unsure() }
    return string
  }

  private static func hexDigit(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  /// A string's bytes with its escapes replaced by what they stand for, in UTF-8.
  private static func unescaped(_ raw: UnsafeRawBufferPointer) throws(Unsure) -> [UInt8] {
    var text: [UInt8] = []
    text.reserveCapacity(raw.count)
    var index = 0
    func hexUnit() throws(Unsure) -> UInt32 {
      guard index + 4 <= raw.count else { throw Unsure() }
      var unit: UInt32 = 0
      for offset in 0..<4 {
        guard let nibble = hexDigit(raw[index + offset]) else { throw Unsure() }
        unit = unit << 4 | nibble
      }
      index += 4
      return unit
    }
    while index < raw.count {
      let byte = raw[index]
      index += 1
      guard byte == UInt8(ascii: "\\") else {
        text.append(byte)
        continue
      }
      guard index < raw.count else { throw Unsure() }
      let escape = raw[index]
      index += 1
      switch escape {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
      case UInt8(ascii: "b"): text.append(0x08)
      case UInt8(ascii: "f"): text.append(0x0C)
      case UInt8(ascii: "n"): text.append(0x0A)
      case UInt8(ascii: "r"): text.append(0x0D)
      case UInt8(ascii: "t"): text.append(0x09)
      case UInt8(ascii: "u"):
        var value = try hexUnit()
        if (0xD800...0xDBFF).contains(value) {
          guard index + 2 <= raw.count, raw[index] == UInt8(ascii: "\\"),
            raw[index + 1] == UInt8(ascii: "u")
          else { throw Unsure() }
          index += 2
          let low = try hexUnit()
          guard (0xDC00...0xDFFF).contains(low) else { throw Unsure() }
          value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(value) else { throw Unsure() }
        text.append(contentsOf: UTF8.encode(scalar)!)
      default: throw Unsure()
      }
    }
    return text
  }
}
