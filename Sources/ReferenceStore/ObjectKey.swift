import ReferenceImageCore

/// The name of one stored object: the SHA-256 of its bytes, as 64 lowercase hex digits.
///
/// Content addressing makes every upload idempotent (the same bytes have one key) and every
/// download checkable (`StoredObject.check`). A key is only ever hex, so it can name a file
/// in a folder store or a URL's last component without any path climbing out.
public struct ObjectKey: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The SHA-256 of the object's bytes.
  public let digest: SHA256Digest

  /// A key from its digest.
  public init(_ digest: SHA256Digest) {
    self.digest = digest
  }

  /// A key from its text; nil unless it is exactly 64 lowercase hex digits.
  public init?(_ text: some StringProtocol) {
    guard let digest = SHA256Digest(hex: String(text)) else { return nil }
    self.digest = digest
  }

  /// The key of some bytes.
  public init(of bytes: [UInt8]) {
    digest = SHA256Digest(of: bytes)
  }

  /// The 64 lowercase hex digits.
  public var hex: String { digest.hex }

  public var description: String { hex }

  public static func < (left: ObjectKey, right: ObjectKey) -> Bool { left.hex < right.hex }
}
