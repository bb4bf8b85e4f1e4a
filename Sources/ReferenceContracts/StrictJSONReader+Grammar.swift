import Foundation

// JSON's grammar between the values: keys, commas, whitespace, and values skipped unread.
extension StrictJSONReader {
  /// The next key of an object, nil at its end. A key a type's fields are matched with must be
  /// ASCII: `String`s compare by canonical equivalence (`"\u{212A}"`, the Kelvin sign, equals
  /// `"K"`), `JSONDecoder`'s view of such keys is not worth guessing, and every field's key is
  /// ASCII. The keys of a dictionary (`Worker.ci`) may be anything: a key met twice, by
  /// `String` equality, is left to `JSONDecoder` as every duplicate is.
  mutating func nextKey(first: inout Bool, asciiOnly: Bool = true) throws(Unsure)
    -> String?
  {
    guard let (range, isPlainASCII) = try nextRawKey(first: &first) else { return nil }
    let raw = UnsafeRawBufferPointer(rebasing: bytes[range])
    if isPlainASCII { return String(decoding: raw, as: UTF8.self) }
    return asciiOnly ? try Self.asciiKey(raw) : try Self.validString(raw)
  }

  /// Steps past the next key of an object and its colon: the key's raw bytes (between the
  /// quotes) and whether they are plain ASCII; nil at the object's end.
  mutating func nextRawKey(first: inout Bool) throws(Unsure)
    -> (range: Range<Int>, isPlainASCII: Bool)?
  {
    guard try nextMember(first: &first, closing: UInt8(ascii: "}")) else { return nil }
    skipWhitespace()
    let key = try scanString()
    try expect(UInt8(ascii: ":"))
    return key
  }

  mutating func nextElement(first: inout Bool) throws(Unsure) -> Bool {
    try nextMember(first: &first, closing: UInt8(ascii: "]"))
  }

  /// Steps past the comma before a member, or the container's end: whether a member follows.
  private mutating func nextMember(first: inout Bool, closing: UInt8) throws(Unsure) -> Bool {
    skipWhitespace()
    guard index < bytes.count else { throw Unsure() }
    if bytes[index] == closing {
      index += 1
      return false
    }
    if first {
      first = false
    } else {
      try expect(UInt8(ascii: ","))
    }
    skipWhitespace()
    return true
  }

  /// Checks and skips any value.
  mutating func skipValue(depth: Int) throws(Unsure) {
    guard depth <= Self.maximumDepth else { throw Unsure() }
    skipWhitespace()
    guard index < bytes.count else { throw Unsure() }
    switch bytes[index] {
    case UInt8(ascii: "{"):
      var keys = SkippedKeys()
      index += 1
      var first = true
      while let key = try nextRawKey(first: &first) {
        // A key with escapes or beyond ASCII is left to `JSONDecoder`, as `nextKey` leaves one
        // beyond ASCII.
        guard key.isPlainASCII, keys.insert(key.range, in: bytes) else { throw Unsure() }
        try skipValue(depth: depth + 1)
      }
    case UInt8(ascii: "["):
      index += 1
      var first = true
      while try nextElement(first: &first) { try skipValue(depth: depth + 1) }
    // Checked as `string()` and `double()` read them, without making the value.
    case UInt8(ascii: "\""): _ = try skipString()
    case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
    case UInt8(ascii: "n"): guard try null() else { throw Unsure() }
    default: try skipDouble()
    }
  }

  /// Steps past a number `double()` reads. An integer of at most 15 digits but `-0` is read by
  /// `double()` exactly, as normal or as a plain zero, so it needs no parse.
  private mutating func skipDouble() throws(Unsure) {
    skipWhitespace()
    let start = index
    let isNegative = start < bytes.count && bytes[start] == UInt8(ascii: "-")
    let digits = try skipNumber()
    let isNegativeZero = isNegative && digits == 1 && bytes[index - 1] == UInt8(ascii: "0")
    if let digits, digits <= 15, !isNegativeZero { return }
    index = start
    _ = try double()
  }

  /// The keys of an object being skipped, as ranges of plain ASCII bytes: a duplicate is
  /// found by comparing bytes, not by making a `String` of every key of every record skipped.
  private struct SkippedKeys {
    /// Beyond this many keys (a hostile object's), they are kept in a set, so finding a
    /// duplicate never costs the square of their number.
    static let compared = 32
    private var ranges: [Range<Int>] = []
    private var many: Set<String> = []

    /// Adds a key; false when the object had it already.
    mutating func insert(_ key: Range<Int>, in bytes: UnsafeRawBufferPointer) -> Bool {
      func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
      }
      guard ranges.count < Self.compared else { return many.insert(text(key)).inserted }
      let keyBytes = UnsafeRawBufferPointer(rebasing: bytes[key])
      for range in ranges
      where StrictJSONReader.sameBytes(UnsafeRawBufferPointer(rebasing: bytes[range]), keyBytes) {
        return false
      }
      ranges.append(key)
      if ranges.count == Self.compared { many = Set(ranges.map(text)) }
      return true
    }
  }

  /// Whether two runs of bytes are equal, by `memcmp`: a generic comparison of slices goes a
  /// byte at a time, which shows in an up-to-date rerun of a fleet.
  static func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
  }

  /// Skips a number of JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
  /// - Returns: The number of digits of an integer; nil for a fraction or an exponent.
  @discardableResult
  mutating func skipNumber() throws(Unsure) -> Int? {
    if consume("-") {}
    let integerStart = index
    skipDigits()
    let integerDigits = index - integerStart
    guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0")
    else { throw Unsure() }
    var isInteger = true
    if consume(".") {
      let start = index
      skipDigits()
      guard index > start else { throw Unsure() }
      isInteger = false
    }
    if consume("e") || consume("E") {
      if !consume("+") { _ = consume("-") }
      let start = index
      skipDigits()
      guard index > start else { throw Unsure() }
      isInteger = false
    }
    return isInteger ? integerDigits : nil
  }

  private mutating func skipDigits() {
    while index < bytes.count, Self.digit(bytes[index]) != nil { index += 1 }
  }

  mutating func null() throws(Unsure) -> Bool {
    skipWhitespace()
    return consume("null")
  }

  mutating func expect(_ byte: UInt8) throws(Unsure) {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == byte else { throw Unsure() }
    index += 1
  }

  /// Steps past `literal` if the bytes continue with it.
  mutating func consume(_ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard index + count <= bytes.count else { return false }
    for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
      return false
    }
    index += count
    return true
  }

  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
        index += 1
      default: return
      }
    }
  }

  static func digit(_ byte: UInt8) -> Int? {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
  }
}
