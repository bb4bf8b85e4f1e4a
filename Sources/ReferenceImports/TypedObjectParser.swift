/// Parses the typed object text of a result bundle, e.g.
/// `[T[K2:_nV23:ActionsInvocationRecord]K7:actions[S5:Array[...]]]`: every length is checked
/// against what is left, nesting is bounded, and text must be UTF-8.
struct TypedObjectParser {
  struct Failure: Error {
    var reason: String
  }

  private let bytes: [UInt8]
  private let maximumNesting: Int
  private var position = 0
  private var nesting = 0

  /// Parses one whole object; anything after it is an error.
  static func parse(_ bytes: [UInt8], maximumNesting: Int) throws(Failure) -> TypedObject {
    var parser = TypedObjectParser(bytes: bytes, maximumNesting: maximumNesting)
    let object = try parser.object()
    guard parser.position == bytes.count else {
      throw parser.failure("unexpected bytes after the object")
    }
    return object
  }

  private init(bytes: [UInt8], maximumNesting: Int) {
    self.bytes = bytes
    self.maximumNesting = maximumNesting
  }

  private mutating func object() throws(Failure) -> TypedObject {
    try open()
    var object = TypedObject(type: try typeSpecifier())
    while true {
      switch try peek() {
      case UInt8(ascii: "]"):
        position += 1
        nesting -= 1
        return object
      case UInt8(ascii: "K"):
        position += 1
        let key = try lengthPrefixedText()
        object.fields.append((key, try value()))
      case UInt8(ascii: "["):
        object.items.append(try self.object())
      default:
        throw failure("expected a key, an item or ]")
      }
    }
  }

  private mutating func value() throws(Failure) -> TypedValue {
    switch try peek() {
    case UInt8(ascii: "V"):
      position += 1
      return .text(try lengthPrefixedText())
    case UInt8(ascii: "["):
      return .object(try object())
    default:
      throw failure("expected a value")
    }
  }

  /// `T[...]` defines a type (with its supertypes); `S<n>:Name` names one defined before.
  private mutating func typeSpecifier() throws(Failure) -> String {
    switch try take() {
    case UInt8(ascii: "S"): return try lengthPrefixedText()
    case UInt8(ascii: "T"): return try typeDefinition()
    default: throw failure("expected a type (T or S)")
    }
  }

  /// `[K2:_nV<n>:Name]`, optionally with `K2:_s` and the supertype's definition.
  private mutating func typeDefinition() throws(Failure) -> String {
    try open()
    guard try take() == UInt8(ascii: "K"), try lengthPrefixedText() == "_n",
      try take() == UInt8(ascii: "V")
    else { throw failure("expected a type name") }
    let name = try lengthPrefixedText()
    if try peek() == UInt8(ascii: "K") {
      position += 1
      guard try lengthPrefixedText() == "_s" else { throw failure("expected a supertype") }
      _ = try typeDefinition()
    }
    guard try take() == UInt8(ascii: "]") else { throw failure("expected ] after a type") }
    nesting -= 1
    return name
  }

  private mutating func open() throws(Failure) {
    guard try take() == UInt8(ascii: "[") else { throw failure("expected [") }
    nesting += 1
    guard nesting <= maximumNesting else {
      throw failure("nested deeper than \(maximumNesting) levels")
    }
  }

  /// `<decimal length>:<that many bytes of UTF-8>`.
  private mutating func lengthPrefixedText() throws(Failure) -> String {
    var length = 0
    var digits = 0
    while let byte = bytes[safe: position], byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
      length = length * 10 + Int(byte - UInt8(ascii: "0"))
      digits += 1
      position += 1
      guard digits <= 10 else { throw failure("a length of more than 10 digits") }
    }
    guard digits > 0, try take() == UInt8(ascii: ":") else {
      throw failure("expected a length and :")
    }
    guard length <= bytes.count - position else {
      throw failure("a length of \(length) runs past the end (truncated?)")
    }
    let slice = bytes[position..<position + length]
    guard let text = String(validating: slice, as: UTF8.self) else {
      throw failure("text that is not UTF-8")
    }
    position += length
    return text
  }

  private func peek() throws(Failure) -> UInt8 {
    guard let byte = bytes[safe: position] else {
      throw failure("the object ends early (truncated?)")
    }
    return byte
  }

  private mutating func take() throws(Failure) -> UInt8 {
    let byte = try peek()
    position += 1
    return byte
  }

  private func failure(_ reason: String) -> Failure {
    Failure(reason: "\(reason), at byte \(position)")
  }
}

extension Array {
  fileprivate subscript(safe index: Int) -> Element? {
    indices.contains(index) ? self[index] : nil
  }
}
