import ReferenceImageCore

/// The name of one stored object: the SHA-256 of its bytes, as 64 lowercase hex digits.
///
/// Content addressing makes every upload idempotent (the same bytes have one key) and every
/// download checkable (`StoredObject.check`). A key is only ever hex, so it can name a file
/// in a folder store or a URL's last component without any path climbing out.
public struct ObjectKey: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The 64 lowercase hex digits.
  public let hex: String

  /// A key from its text; nil unless it is exactly 64 lowercase hex digits.
  public init?(_ text: some StringProtocol) {
    guard text.utf8.count == 64,
      text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    else { return nil }
    hex = String(text)
  }

  /// The key of some bytes.
  public init(of bytes: [UInt8]) {
    hex = SHA256.hex(bytes)
  }

  public var description: String { hex }

  public static func < (left: ObjectKey, right: ObjectKey) -> Bool { left.hex < right.hex }
}
