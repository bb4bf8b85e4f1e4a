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
}
