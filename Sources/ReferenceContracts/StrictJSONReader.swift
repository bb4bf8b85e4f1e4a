import Foundation
import ReferenceImageCore

/// A reader of JSON bytes that reads only what `JSONDecoder` surely reads the same way, and
/// gives up (`Unsure`) on everything else: the caller then asks `JSONDecoder`, so a value this
/// reader returns is the decoder's value, and every error is still the decoder's own.
///
/// Why it exists: a fleet's merge reads hundreds of manifests with tens of thousands of image
/// records, and `JSONDecoder` builds a tree of the whole document and a keyed container per
/// record before any field is read. This reader fills the fields straight from the bytes.
///
/// It gives up on: duplicate or non-ASCII keys, integers written with a fraction, an exponent,
/// a sign of zero or beyond `Int`, lone surrogates, invalid UTF-8, nesting beyond
/// `maximumDepth`, a byte order mark, and any date but `YYYY-MM-DDTHH:MM:SSZ` from 1970 on.
/// None of these occur in a manifest `ArchiveManifest.encoded()` wrote.
struct StrictJSONReader {
  /// Said when the bytes hold something this reader does not vouch for.
  struct Unsure: Error {}

  /// Nesting this reader follows in values it skips; deeper documents go to `JSONDecoder`.
  static let maximumDepth = 32

  private let bytes: UnsafeRawBufferPointer
  private var index = 0

  init(_ bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  // MARK: Documents and containers

  /// Reads the one object the document holds, then checks that only whitespace follows.
  mutating func document<Value>(
    _ read: (inout StrictJSONReader) throws(Unsure) -> Value
  ) throws(Unsure) -> Value {
    skipWhitespace()
    let value = try read(&self)
    skipWhitespace()
    guard index == bytes.count else { throw Unsure() }
    return value
  }

  /// The keys a type reads, made once per type: `Field` is an enumeration of them.
  struct Fields<Field: RawRepresentable<String> & Sendable>: Sendable {
    let cases: [Field]
    let names: [String]
    private let utf8Names: [[UInt8]]

    init(_ cases: [Field]) {
      precondition(cases.count <= 64, "one bit per field marks the fields read")
      self.cases = cases
      self.names = cases.map(\.rawValue)
      self.utf8Names = names.map { Array($0.utf8) }
    }

    /// The field a key names, by the key's raw bytes when they are plain ASCII (no `String`
    /// made for each key of every record), else by its text.
    func index(of key: String?, raw: Slice<UnsafeRawBufferPointer>) -> Int? {
      guard let key else {
        let raw = UnsafeRawBufferPointer(rebasing: raw)
        return utf8Names.firstIndex { name in
          name.withUnsafeBytes { StrictJSONReader.sameBytes($0, raw) }
        }
      }
      return names.firstIndex(of: key)
    }
  }

  /// Reads an object, calling `member` with each key of `fields` while the reader stands at its
  /// value; other keys' values are checked and skipped, as `JSONDecoder` ignores them.
  mutating func object<Field>(
    _ fields: Fields<Field>, _ member: (Field, inout StrictJSONReader) throws(Unsure) -> Void
  ) throws(Unsure) {
    var seen: UInt64 = 0
    var unknown: Set<String> = []
    try expect(UInt8(ascii: "{"))
    var first = true
    while let (range, isPlainASCII) = try nextRawKey(first: &first) {
      let raw = bytes[range]
      // An escaped key is matched by its text, as `nextKey` reads it.
      let text = isPlainASCII ? nil : try Self.asciiKey(UnsafeRawBufferPointer(rebasing: raw))
      if let field = fields.index(of: text, raw: raw) {
        let bit: UInt64 = 1 << UInt64(field)
        guard seen & bit == 0 else { throw Unsure() }
        seen |= bit
        try member(fields.cases[field], &self)
      } else {
        let key = text ?? String(decoding: UnsafeRawBufferPointer(rebasing: raw), as: UTF8.self)
        guard unknown.insert(key).inserted else { throw Unsure() }
        try skipValue(depth: 1)
      }
    }
  }

  /// Reads an array, each element with `element`.
  mutating func array<Element>(
    _ element: (inout StrictJSONReader) throws(Unsure) -> Element
  ) throws(Unsure) -> [Element] {
    var elements: [Element] = []
    try expect(UInt8(ascii: "["))
    var first = true
    while try nextElement(first: &first) {
      elements.append(try element(&self))
    }
    return elements
  }

  /// Checks and skips an array's elements, returning how many there were.
  mutating func skippedElements() throws(Unsure) -> Int {
    var count = 0
    try expect(UInt8(ascii: "["))
    var first = true
    while try nextElement(first: &first) {
      try skipValue(depth: 1)
      count += 1
    }
    return count
  }

  /// Reads an object of strings as a dictionary.
  mutating func stringDictionary() throws(Unsure) -> [String: String] {
    var dictionary: [String: String] = [:]
    try expect(UInt8(ascii: "{"))
    var first = true
    while let key = try nextKey(first: &first, asciiOnly: false) {
      guard dictionary.updateValue(try string(), forKey: key) == nil else { throw Unsure() }
    }
    return dictionary
  }

  /// Reads an array of strings.
  mutating func strings() throws(Unsure) -> [String] {
    try array { (reader) throws(Unsure) in try reader.string() }
  }

  /// Reads `null` as nil, anything else with `read`, as `decodeIfPresent` does.
  mutating func optional<Value>(
    _ read: (inout StrictJSONReader) throws(Unsure) -> Value
  ) throws(Unsure) -> Value? {
    if try null() { return nil }
    return try read(&self)
  }

  // MARK: Scalars

  /// Reads a string, unescaped.
  mutating func string() throws(Unsure) -> String {
    let scanned = try scanString()
    let raw = UnsafeRawBufferPointer(rebasing: bytes[scanned.range])
    if scanned.isPlainASCII { return String(decoding: raw, as: UTF8.self) }
    return try Self.validString(raw)
  }

  /// Steps past a string, checking it as `string()` does: its raw bytes' range when they are
  /// plain ASCII (no escapes), which needs no `String` made.
  private mutating func skipString() throws(Unsure) -> Range<Int>? {
    let scanned = try scanString()
    guard scanned.isPlainASCII else {
      _ = try Self.validString(UnsafeRawBufferPointer(rebasing: bytes[scanned.range]))
      return nil
    }
    return scanned.range
  }

  /// Steps past a string, returning its raw bytes (between the quotes) and whether they are
  /// plain ASCII; control characters are refused.
  private mutating func scanString() throws(Unsure) -> (range: Range<Int>, isPlainASCII: Bool) {
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
  private static func asciiKey(_ raw: UnsafeRawBufferPointer) throws(Unsure) -> String {
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
  private static func validString(_ raw: UnsafeRawBufferPointer) throws(Unsure) -> String {
    let text = raw.contains(UInt8(ascii: "\\")) ? try unescaped(raw) : Array(raw)
    guard let string = String(validating: text, as: UTF8.self) else { throw Unsure() }
    return string
  }

  /// Reads an integer written as JSON writes one: digits, perhaps a minus, no leading zero.
  mutating func int() throws(Unsure) -> Int {
    skipWhitespace()
    let isNegative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
    if isNegative { index += 1 }
    let start = index
    var magnitude: UInt64 = 0
    while index < bytes.count, let digit = Self.digit(bytes[index]) {
      let (shifted, overflowed) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, overflowedAgain) = shifted.addingReportingOverflow(UInt64(digit))
      guard !overflowed, !overflowedAgain else { throw Unsure() }
      magnitude = sum
      index += 1
    }
    let digits = index - start
    guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { throw Unsure() }
    // `1.0` or `1e2` may or may not be an `Int` to `JSONDecoder`; `-0` is a question too.
    if index < bytes.count,
      [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")]
        .contains(bytes[index])
    {
      throw Unsure()
    }
    guard isNegative else {
      guard let value = Int(exactly: magnitude) else { throw Unsure() }
      return value
    }
    guard magnitude != 0, magnitude <= Int.min.magnitude else { throw Unsure() }
    return Int(truncatingIfNeeded: 0 &- magnitude)
  }

  /// Reads an `Int32`.
  mutating func int32() throws(Unsure) -> Int32 {
    guard let value = Int32(exactly: try int()) else { throw Unsure() }
    return value
  }

  /// Reads a number as a `Double`, parsed as `JSONDecoder` parses it (`strtod`). Numbers
  /// beyond `Double`'s normal range are left to it: it refuses `1e999` and `1e-3100` (which
  /// `strtod` reads as infinity and zero), and `-0.0e5` too (a zero with a nonzero digit, its
  /// exponent's, read as an underflow); of zeros only `0` and `0.0…` are read here.
  mutating func double() throws(Unsure) -> Double {
    skipWhitespace()
    let start = index
    try skipNumber()
    let number = bytes[start..<index]
    guard let value = Double(String(decoding: number, as: UTF8.self)), value.isFinite,
      value.isNormal || (value.isZero && Self.isPlainZero(number))
    else { throw Unsure() }
    return value
  }

  /// Whether a number is written `0` or `0.` and zeros: no sign, no exponent.
  private static func isPlainZero(_ number: Slice<UnsafeRawBufferPointer>) -> Bool {
    number.first == UInt8(ascii: "0")
      && number.allSatisfy { $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: ".") }
  }

  /// Reads `true` or `false`.
  mutating func bool() throws(Unsure) -> Bool {
    skipWhitespace()
    if consume("true") { return true }
    if consume("false") { return false }
    throw Unsure()
  }

  /// Reads a date as `JSONDecoder.DateDecodingStrategy.iso8601` does, in the one form
  /// `JSONEncoder`'s `.iso8601` writes: `2026-11-27T08:20:11Z`.
  mutating func iso8601Date() throws(Unsure) -> Date {
    let text = try string()
    guard let seconds = Self.secondsSince1970(iso8601: Array(text.utf8)) else { throw Unsure() }
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }

  /// Reads a SHA-256 digest, written as 64 lowercase hex digits (read in place when plain):
  /// any other text is left to `JSONDecoder`, which refuses it naming the field.
  mutating func sha256Digest() throws(Unsure) -> SHA256Digest {
    let scanned = try scanString()
    let raw = UnsafeRawBufferPointer(rebasing: bytes[scanned.range])
    let digest =
      scanned.isPlainASCII
      ? SHA256Digest(hexDigits: raw.assumingMemoryBound(to: UInt8.self))
      : SHA256Digest(hex: try Self.validString(raw))
    guard let digest else { throw Unsure() }
    return digest
  }

  /// Reads a string that must be one of an enumeration's raw values.
  mutating func rawValue<Value: RawRepresentable<String>>(
    _: Value.Type
  ) throws(Unsure) -> Value {
    guard let value = Value(rawValue: try string()) else { throw Unsure() }
    return value
  }

  // MARK: Grammar

  /// The next key of an object, nil at its end. A key a type's fields are matched with must be
  /// ASCII: `String`s compare by canonical equivalence (`"\u{212A}"`, the Kelvin sign, equals
  /// `"K"`), `JSONDecoder`'s view of such keys is not worth guessing, and every field's key is
  /// ASCII. The keys of a dictionary (`Worker.ci`) may be anything: a key met twice, by
  /// `String` equality, is left to `JSONDecoder` as every duplicate is.
  private mutating func nextKey(first: inout Bool, asciiOnly: Bool = true) throws(Unsure)
    -> String?
  {
    guard let (range, isPlainASCII) = try nextRawKey(first: &first) else { return nil }
    let raw = UnsafeRawBufferPointer(rebasing: bytes[range])
    if isPlainASCII { return String(decoding: raw, as: UTF8.self) }
    return asciiOnly ? try Self.asciiKey(raw) : try Self.validString(raw)
  }

  /// Steps past the next key of an object and its colon: the key's raw bytes (between the
  /// quotes) and whether they are plain ASCII; nil at the object's end.
  private mutating func nextRawKey(first: inout Bool) throws(Unsure)
    -> (range: Range<Int>, isPlainASCII: Bool)?
  {
    guard try nextMember(first: &first, closing: UInt8(ascii: "}")) else { return nil }
    skipWhitespace()
    let key = try scanString()
    try expect(UInt8(ascii: ":"))
    return key
  }

  private mutating func nextElement(first: inout Bool) throws(Unsure) -> Bool {
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
  private mutating func skipValue(depth: Int) throws(Unsure) {
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

  /// Whether two runs of bytes are equal (`memcmp`: a generic comparison of slices went a
  /// byte at a time, 2.2% of an up-to-date rerun of 500,000 images).
  static func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
  }

  /// Skips a number of JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
  /// - Returns: The number of digits of an integer; nil for a fraction or an exponent.
  @discardableResult
  private mutating func skipNumber() throws(Unsure) -> Int? {
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

  private mutating func null() throws(Unsure) -> Bool {
    skipWhitespace()
    return consume("null")
  }

  private mutating func expect(_ byte: UInt8) throws(Unsure) {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == byte else { throw Unsure() }
    index += 1
  }

  /// Steps past `literal` if the bytes continue with it.
  private mutating func consume(_ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard index + count <= bytes.count else { return false }
    for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
      return false
    }
    index += count
    return true
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
        index += 1
      default: return
      }
    }
  }

  // MARK: Pieces

  private static func digit(_ byte: UInt8) -> Int? {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
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

  /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SSZ`, a valid Gregorian date from 1970 to 9999;
  /// nil for any other text.
  static func secondsSince1970(iso8601 text: [UInt8]) -> Int? {
    guard text.count == 20, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
      text[10] == UInt8(ascii: "T"), text[13] == UInt8(ascii: ":"),
      text[16] == UInt8(ascii: ":"), text[19] == UInt8(ascii: "Z")
    else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for position in range {
        guard let digit = digit(text[position]) else { return nil }
        value = value * 10 + digit
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      year >= 1970, (1...12).contains(month), hour < 24, minute < 60, second < 60,
      (1...daysIn(month: month, year: year)).contains(day)
    else { return nil }
    let days = daysSince1970(year: year, month: month, day: day)
    return ((days * 24 + hour) * 60 + minute) * 60 + second
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days from 1970-01-01 to a Gregorian date (Howard Hinnant's `days_from_civil`).
  private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = shiftedYear / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
