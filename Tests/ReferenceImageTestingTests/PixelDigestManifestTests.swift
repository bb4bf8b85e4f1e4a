import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceImageTesting

final class PixelDigestManifestTests: XCTestCase {
  func testArchive_everyImagesDigestChunk_agreesWithItsManifestRecord() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    let coordinator = makeCoordinator(output: output)
    for index in 0..<4 {
      let image = try sampleImage(seed: index, width: 20 + index, height: 9 + index * 3)
      try coordinator.store(image, at: package.location("image-\(index)"), test: "T.test\(index)")
    }
    let contents = try ArchiveContents(try XCTUnwrap(coordinator.finishRun()))
    let records = try XCTUnwrap(contents.manifest).images
    XCTAssertEqual(records.count, 4)
    for record in records {
      let png = try XCTUnwrap(contents.files[record.path])
      let digest = try XCTUnwrap(PNGPixelDigest.read(fromPNG: png), record.path)
      XCTAssertEqual(digest.pixelSHA256, record.pixelSHA256, record.path)
      XCTAssertEqual([digest.width, digest.height], [record.width, record.height], record.path)
      XCTAssertEqual(try PNGDecoder().decode(png).pixelSHA256, record.pixelSHA256.hex, record.path)
    }
  }
}
