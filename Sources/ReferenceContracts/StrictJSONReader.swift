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

  let bytes: UnsafeRawBufferPointer
  var index = 0

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
}
