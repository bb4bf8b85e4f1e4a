import CLibCrypto

/// SHA-256 digests as lowercase hex, through libcrypto's `EVP_Digest`.
public enum SHA256 {
  /// The digest of some bytes.
  /// - Parameter bytes: The bytes to hash.
  /// - Returns: 64 lowercase hex digits.
  public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    hexString(digest(bytes))
  }

  /// The digest of a byte array.
  /// - Parameter bytes: The bytes to hash.
  /// - Returns: 64 lowercase hex digits.
  public static func hex(_ bytes: [UInt8]) -> String {
    bytes.withUnsafeBytes { hex($0) }
  }

  /// The 32 raw digest bytes of some bytes (`EVP_Digest`).
  package static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    _ = initialized
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let status = digest.withUnsafeMutableBufferPointer { output in
      EVP_Digest(bytes.baseAddress, bytes.count, output.baseAddress, &length, EVP_sha256(), nil)
    }
    // EVP_Digest with SHA-256 fails only when allocation fails; there is no sane recovery.
    precondition(status == 1 && length == 32, "libcrypto could not compute SHA-256")
    return digest
  }

  /// libcrypto set up without its atexit cleanup, before the first digest.
  private static let initialized: Void = {
    precondition(ri_openssl_init_without_atexit() == 1, "libcrypto failed to initialise")
  }()

  package static func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// A digest fed in pieces (`EVP_DigestInit_ex`, `EVP_DigestUpdate`, `EVP_DigestFinal_ex`),
  /// for data that is not contiguous, such as the IDAT chunks of a PNG file.
  package final class Hasher {
    private let context: OpaquePointer

    /// Starts a digest.
    package init() {
      _ = SHA256.initialized
      guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1
      else { preconditionFailure("libcrypto could not start a SHA-256 digest") }
      self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the digest.
    package func update(_ bytes: UnsafeRawBufferPointer) {
      guard bytes.count > 0 else { return }
      precondition(
        EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1,
        "libcrypto could not update a SHA-256 digest")
    }

    /// The 32 digest bytes of everything added; call once.
    package func finish() -> [UInt8] {
      var digest = [UInt8](repeating: 0, count: 32)
      var length: UInt32 = 0
      let status = digest.withUnsafeMutableBufferPointer { output in
        EVP_DigestFinal_ex(context, output.baseAddress, &length)
      }
      precondition(status == 1 && length == 32, "libcrypto could not finish a SHA-256 digest")
      return digest
    }
  }
}
