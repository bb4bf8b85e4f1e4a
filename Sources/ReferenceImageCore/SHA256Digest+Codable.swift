/// A digest in JSON is its 64 lowercase hex digits, the form `hex` prints: a record that holds
/// one encodes exactly as one that held the text. Any other text is refused where it is
/// decoded, naming the field, so no later reader meets a digest that is not one.
extension SHA256Digest: Codable {
  /// Reads 64 lowercase hex digits.
  /// - Throws: `DecodingError.dataCorrupted` for any other string, `typeMismatch` for a value
  ///   that is not a string.
  public init(from decoder: Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let digest = SHA256Digest(hex: text) else {
      let shown = text.count > 80 ? "\(text.prefix(80))…" : text
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "not a SHA-256 digest (64 lowercase hex digits): \"\(shown)\"")
    }
    self = digest
  }

  /// Writes 64 lowercase hex digits.
  public func encode(to encoder: Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(hex)
  }
}
