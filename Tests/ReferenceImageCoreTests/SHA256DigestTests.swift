import XCTest

@testable import ReferenceImageCore

final class SHA256DigestTests: XCTestCase {
  func testHex_isWhatSHA256HexPrints() {
    let bytes = Array("reference images".utf8)

    let digest = SHA256Digest(of: bytes)

    XCTAssertEqual(digest.hex, SHA256.hex(bytes))
    XCTAssertEqual(digest.description, SHA256.hex(bytes))
  }

  func testInitHex_readsBackTheSameDigest() {
    let digest = SHA256Digest(of: [1, 2, 3])

    XCTAssertEqual(SHA256Digest(hex: digest.hex), digest)
    XCTAssertNotEqual(SHA256Digest(hex: SHA256.hex([1, 2, 4])), digest)
  }

  func testInitHex_notSixtyFourLowercaseHexDigits_isNil() {
    let hex = SHA256.hex([1, 2, 3])

    XCTAssertNil(SHA256Digest(hex: hex.uppercased()))
    XCTAssertNil(SHA256Digest(hex: String(hex.dropLast())))
    XCTAssertNil(SHA256Digest(hex: hex + "0"))
    XCTAssertNil(SHA256Digest(hex: String(hex.dropLast()) + "g"))
    XCTAssertNil(SHA256Digest(hex: ""))
  }

  /// The word reader takes eight digits at a time: every byte value at every place of 16
  /// digits reads as the digit-by-digit reader reads it.
  func testWord_everyByteAtEveryPlace_readsAsDigitByDigit() {
    var generator = SystemRandomNumberGenerator()
    let digits = Array("0123456789abcdef".utf8)
    for _ in 0..<8 {
      let valid = (0..<16).map { _ in digits.randomElement(using: &generator)! }
      for place in 0..<16 {
        for value in UInt8.min...UInt8.max {
          var bytes = valid
          bytes[place] = value
          bytes.withUnsafeBufferPointer { buffer in
            XCTAssertEqual(
              SHA256Digest.word(buffer, 0), SHA256Digest.hexWord(buffer),
              "\(String(decoding: valid, as: UTF8.self)) with byte \(value) at \(place)")
          }
        }
      }
    }
  }
}
