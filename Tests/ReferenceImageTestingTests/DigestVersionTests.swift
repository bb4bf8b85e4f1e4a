import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceImageTesting

/// How verify and generation read references by their pixel digest's version: the current
/// chunk is checked with the fast hash, a version 1 chunk by decoding (verify) or SHA-256
/// (generation), and a chunk that no longer agrees with itself is never believed.
final class DigestVersionTests: XCTestCase {
  func testVerify_currentDigest_matchesWithTheFastHashAlone() throws {
    let package = try TemporaryPackage(self)
    let image = try sampleImage(seed: 9, width: 40, height: 30)
    let location = try package.location("current")
    try write(try PNGEncoder().encode(image), to: location)
    let pixelHash = RenderedPixelHash(image)
    XCTAssertEqual(read(location, image, pixelHash), .matchesByDigest)
    XCTAssertNil(pixelHash.computed, "a passing verify never computes the SHA-256")
    let unchanged = try XCTUnwrap(
      UnchangedReference.read(at: location, matching: image, pixelHash: pixelHash))
    XCTAssertEqual(unchanged.pixelSHA256.hex, SHA256.hex(image.pixels), "the chunk's SHA-256")
    XCTAssertNil(pixelHash.computed, "nor does recording it unchanged")
  }

  func testVerify_onePixelDifferent_isDecodedAndFails() throws {
    let package = try TemporaryPackage(self)
    let image = try sampleImage(seed: 9, width: 40, height: 30)
    let location = try package.location("current")
    try write(try PNGEncoder().encode(image), to: location)
    var changed = image
    var color = changed[39, 29]
    color.blue ^= 1
    changed[39, 29] = color
    guard case .compared(let reference, let result) = read(location, changed) else {
      return XCTFail("a render one pixel off is decoded and compared")
    }
    XCTAssertEqual(reference, image)
    XCTAssertEqual(result.differences?.differingPixelCount, 1)
    XCTAssertNil(UnchangedReference.read(at: location, matching: changed))
  }

  func testVersion1Reference_verifyDecodes_generationMatchesBySHA256() throws {
    let package = try TemporaryPackage(self)
    let image = try sampleImage(seed: 9, width: 40, height: 30)
    let location = try package.location("old")
    let old = try version1(of: PNGEncoder().encode(image), pixels: image)
    try write(old, to: location)
    XCTAssertNil(try XCTUnwrap(PNGPixelDigest.read(fromPNG: old)).pixelXXH3)
    guard case .compared(let reference, let result) = read(location, image) else {
      return XCTFail("verify decodes a version 1 reference, faster than SHA-256 of the render")
    }
    XCTAssertEqual(reference, image)
    XCTAssertTrue(result.passed)
    XCTAssertEqual(
      UnchangedReference.read(at: location, matching: image),
      UnchangedReference(
        pngSHA256: SHA256Digest(of: old), pixelSHA256: SHA256Digest(of: image.pixels)),
      "generation records an unchanged version 1 reference, as before")
    var changed = image
    changed[0, 0] = .red
    guard case .compared(_, let changedResult) = read(location, changed) else {
      return XCTFail("other pixels are compared")
    }
    XCTAssertFalse(changedResult.passed)
    XCTAssertNil(UnchangedReference.read(at: location, matching: changed))
  }

  func testTamperedFastDigest_fallsBackToDecoding() throws {
    // The chunk's fast digest edited to name another render, its CRC made right again: its
    // seal disagrees, so neither verify nor generation believes it.
    let package = try TemporaryPackage(self)
    let image = try sampleImage(seed: 9, width: 40, height: 30)
    var other = image
    other[5, 5] = .red
    let png = try PNGEncoder().encode(image)
    var data = try digestData(of: png)
    data.replaceSubrange(17..<33, with: XXH3Digest(of: other.pixels).bytes)
    let location = try package.location("tampered")
    try write(try replacingDigest(of: png, with: data), to: location)
    guard case .compared(let reference, let result) = read(location, other) else {
      return XCTFail("a tampered chunk is never believed")
    }
    XCTAssertEqual(reference, image, "the file's own pixels")
    XCTAssertFalse(result.passed)
    XCTAssertNil(UnchangedReference.read(at: location, matching: other))
    guard case .compared(_, let ownResult) = read(location, image) else {
      return XCTFail("decoded")
    }
    XCTAssertTrue(ownResult.passed, "the render of the file's pixels still passes")
  }

  // MARK: Helpers

  private func read(
    _ location: ReferenceLocation, _ image: RGBAImage, _ pixelHash: RenderedPixelHash? = nil
  ) -> ReferenceState {
    ReferenceState.read(
      at: location, comparing: image, by: .exact, bound: .none, pixelHash: pixelHash)
  }

  private func chunks(of png: [UInt8]) throws -> [PNGChunks.Chunk] {
    try XCTUnwrap(png.withUnsafeBytes { PNGChunks($0) }, "a PNG").chunks
  }

  private func digestData(of png: [UInt8]) throws -> [UInt8] {
    let chunk = try XCTUnwrap(chunks(of: png).first { $0.type == PNGChunks.type("riDG") })
    return Array(png[chunk.data])
  }

  /// The file with its digest chunk's data replaced and a correct CRC.
  private func replacingDigest(of png: [UInt8], with data: [UInt8]) throws -> [UInt8] {
    let type = PNGChunks.type("riDG")
    return Array(png[0..<8])
      + (try chunks(of: png)).flatMap { chunk in
        chunk.type == type ? PNGChunks.encode(type: type, data: data) : Array(png[chunk.whole])
      }
  }

  /// The file with a version 1 chunk, as the package wrote before version 2.
  private func version1(of png: [UInt8], pixels: RGBAImage) throws -> [UInt8] {
    let idat = try chunks(of: png).filter { $0.type == PNGChunks.idat }.flatMap { png[$0.data] }
    return try replacingDigest(
      of: png,
      with: [1] + idat.withUnsafeBytes(SHA256.digest) + pixels.pixels.withUnsafeBytes(SHA256.digest)
    )
  }

  private func write(_ bytes: [UInt8], to location: ReferenceLocation) throws {
    try FileManager.default.createDirectory(
      at: location.url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: location.url)
  }
}
