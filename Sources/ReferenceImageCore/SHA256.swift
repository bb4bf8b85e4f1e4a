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

/// A SHA-256 digest held as four words instead of 64 hex characters: a merge keeps several per
/// image, and a hex `String` costs a heap allocation of its own. Hex appears only when printed.
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
  // Four words, not a tuple, so that equality and hashing are synthesised.
  private let word0, word1, word2, word3: UInt64

  /// The digest of some bytes.
  public init(of bytes: UnsafeRawBufferPointer) {
    self.init(rawBytes: SHA256.digest(bytes))
  }

  /// The digest of a byte array.
  public init(of bytes: [UInt8]) {
    self = bytes.withUnsafeBytes { SHA256Digest(of: $0) }
  }

  /// A digest from its 32 raw bytes.
  package init(rawBytes bytes: [UInt8]) {
    precondition(bytes.count == 32, "a SHA-256 digest has 32 bytes")
    func word(_ start: Int) -> UInt64 {
      bytes[start..<start + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }
    (word0, word1, word2, word3) = (word(0), word(8), word(16), word(24))
  }

  /// A digest from 64 lowercase hex digits (the form `SHA256.hex` prints), else nil.
  public init?(hex: String) {
    // Read in place, word by word: a merge reads two digests per manifest record, and an array
    // per digest would be a heap allocation each.
    var hex = hex
    guard let digest = hex.withUTF8({ SHA256Digest(hexDigits: $0) }) else { return nil }
    self = digest
  }

  /// A digest from 64 lowercase hexadecimal digits read in place, such as a field of a file.
  package init?(hexDigits digits: UnsafeBufferPointer<UInt8>) {
    guard digits.count == 64, let word0 = Self.word(digits, 0), let word1 = Self.word(digits, 1),
      let word2 = Self.word(digits, 2), let word3 = Self.word(digits, 3)
    else { return nil }
    (self.word0, self.word1, self.word2, self.word3) = (word0, word1, word2, word3)
  }

  /// The `index`th 16 lowercase hex digits of `digits` as a word, else nil: eight digits at
  /// a time, as `hexWord` reads them one by one (a merge reads two digests for every image of
  /// every manifest, so digit by digit would show in a fleet rerun's time).
  static func word(_ digits: UnsafeBufferPointer<UInt8>, _ index: Int) -> UInt64? {
    let raw = UnsafeRawBufferPointer(digits)
    let first = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 16, as: UInt64.self))
    let second = UInt64(
      littleEndian: raw.loadUnaligned(fromByteOffset: index * 16 + 8, as: UInt64.self))
    guard let high = eightDigits(first), let low = eightDigits(second) else { return nil }
    return high << 32 | low
  }

  /// Eight lowercase hex digits, the first in the lowest byte, as a 32-bit value; nil unless
  /// every byte is one. Each byte is compared without borrowing from the next: with its top
  /// bit set, subtracting at most 0x7F leaves the top bit saying which side of a bound it is.
  private static func eightDigits(_ bytes: UInt64) -> UInt64? {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let tops = ones &* 0x80
    guard bytes & tops == 0 else { return nil }
    let atLeast0 = (bytes | tops) &- ones &* 0x30
    let atMost9 = ones &* 0xB9 &- bytes
    let atLeastA = (bytes | tops) &- ones &* 0x61
    let atMostF = ones &* 0xE6 &- bytes
    guard (atLeast0 & atMost9 | atLeastA & atMostF) & tops == tops else { return nil }
    // '0'...'9' are 0x30...0x39 and 'a'...'f' 0x61...0x66: the low four bits, plus 9 for a
    // letter (bit 6).
    let nibbles = (bytes & 0x0F0F_0F0F_0F0F_0F0F) &+ (bytes >> 6 & ones) &* 9
    let mask: UInt64 = 0x000F_000F_000F_000F
    let pairs = (nibbles & mask) << 4 | (nibbles >> 8 & mask)
    return (pairs & 0xFF) << 24 | (pairs >> 16 & 0xFF) << 16 | (pairs >> 32 & 0xFF) << 8
      | (pairs >> 48 & 0xFF)
  }

  /// The value of 1 to 16 lowercase hexadecimal digits read in place; nil for anything else.
  package static func hexWord(_ digits: UnsafeBufferPointer<UInt8>) -> UInt64? {
    guard (1...16).contains(digits.count) else { return nil }
    var value: UInt64 = 0
    for character in digits {
      let nibble: UInt8
      switch character {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
      default: return nil
      }
      value = value << 4 | UInt64(nibble)
    }
    return value
  }

  /// The digest's 32 raw bytes, as `init(rawBytes:)` takes them.
  package var rawBytes: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32)
    for word in [word0, word1, word2, word3] {
      for shift in stride(from: 56, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
      }
    }
    return bytes
  }

  /// 64 lowercase hex digits.
  public var hex: String { SHA256.hexString(rawBytes) }

  /// 64 lowercase hex digits, as `hex`.
  public var description: String { hex }
}
