import Foundation
import ReferenceImageCore
import XCTest

@testable import add_pixel_digests

/// What `add-pixel-digests` decides for a file from its bytes alone.
final class PixelDigestBackfillTests: XCTestCase {
  func testDecision_version1Digest_isReplacedByTheCurrentVersion() throws {
    let image = try RGBAImage(width: 5, height: 3, pixels: (0..<60).map { UInt8($0 * 4) })
    let current = try PNGEncoder().encode(image)
    XCTAssertEqual(PixelDigestBackfill.decision(forPNG: current), .hasDigest)
    let old = try version1(of: current, pixels: image)
    XCTAssertNil(try XCTUnwrap(PNGPixelDigest.read(fromPNG: old)).pixelXXH3)
    guard case .needsDigest(let newBytes) = PixelDigestBackfill.decision(forPNG: old) else {
      return XCTFail("a version 1 digest is upgraded")
    }
    let digest = try XCTUnwrap(PNGPixelDigest.read(fromPNG: newBytes))
    XCTAssertNotNil(digest.pixelXXH3)
    XCTAssertTrue(digest.matches(image))
    XCTAssertEqual(try PNGDecoder().decode(newBytes), image)
    XCTAssertEqual(try imageData(newBytes), try imageData(old), "the image data is kept")
    XCTAssertEqual(PixelDigestBackfill.decision(forPNG: newBytes), .hasDigest)
  }

  private func chunks(of png: [UInt8]) throws -> [PNGChunks.Chunk] {
    try XCTUnwrap(png.withUnsafeBytes { PNGChunks($0) }, "a PNG").chunks
  }

  private func imageData(_ png: [UInt8]) throws -> [UInt8] {
    try chunks(of: png).filter { $0.type == PNGChunks.idat }.flatMap { png[$0.data] }
  }

  /// The file with a version 1 chunk, as the package wrote before version 2.
  private func version1(of png: [UInt8], pixels: RGBAImage) throws -> [UInt8] {
    let type = PNGChunks.type("riDG")
    let data =
      [1] + (try imageData(png)).withUnsafeBytes(SHA256.digest)
      + pixels.pixels.withUnsafeBytes(SHA256.digest)
    return Array(png[0..<8])
      + (try chunks(of: png)).flatMap { chunk in
        chunk.type == type ? PNGChunks.encode(type: type, data: data) : Array(png[chunk.whole])
      }
  }
}
