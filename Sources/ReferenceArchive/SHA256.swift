import CLibCrypto

/// SHA-256 digests as lowercase hex, through libcrypto's `EVP_Digest`.
public enum SHA256 {
  /// The digest of some bytes.
  /// - Parameter bytes: The bytes to hash.
  /// - Returns: 64 lowercase hex digits.
  public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    _ = initialized
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let status = digest.withUnsafeMutableBufferPointer { output in
      EVP_Digest(bytes.baseAddress, bytes.count, output.baseAddress, &length, EVP_sha256(), nil)
    }
    // EVP_Digest with SHA-256 fails only when allocation fails; there is no sane recovery.
    precondition(status == 1 && length == 32, "libcrypto could not compute SHA-256")
    return hexString(digest)
  }

  /// The digest of a byte array.
  /// - Parameter bytes: The bytes to hash.
  /// - Returns: 64 lowercase hex digits.
  public static func hex(_ bytes: [UInt8]) -> String {
    bytes.withUnsafeBytes { hex($0) }
  }

  /// libcrypto set up without its atexit cleanup, before the first digest.
  private static let initialized: Void = {
    precondition(ri_openssl_init_without_atexit() == 1, "libcrypto failed to initialise")
  }()

  static func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}
