import Foundation
import ReferenceImageCore
import XCTest

/// `add-pixel-digests` run as a user would: the built binary on real PNG files written by other
/// tools (every colour type, bit depth and interlacing among the decoder fixtures).
final class AddPixelDigestsEndToEndTests: XCTestCase {
  private let fixtures = FixturePackage.checkout.appendingPathComponent(
    "Tests/ReferenceImageCoreTests/__Fixtures__")

  func testAddPixelDigests_addsOnceWithoutChangingPixels_andSkipsMalformedFiles() throws {
    let folder = try makeTemporaryFolder(self)
    let originals = try copyFixturePNGs(into: folder)
    let malformed = folder.appendingPathComponent("nested/broken.png")
    try FileManager.default.createDirectory(
      at: malformed.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: fixtures.appendingPathComponent("malformed/short_idat.png"), to: malformed)
    let malformedBytes = try Data(contentsOf: malformed)
    let hidden = folder.appendingPathComponent(".build/hidden.png")
    try FileManager.default.createDirectory(
      at: hidden.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: originals.keys.sorted { $0.path < $1.path }[0], to: hidden)
    let hiddenBytes = try Data(contentsOf: hidden)

    let first = try addPixelDigests([folder.path])
    XCTAssertEqual(first.exitStatus, .writeFailed, first.all)
    XCTAssertTrue(
      first.output.contains("added a pixel digest to \(originals.count) PNG files"), first.all)
    XCTAssertTrue(first.error.contains("\(malformed.path): malformed PNG"), first.all)
    XCTAssertEqual(try Data(contentsOf: malformed), malformedBytes, "malformed file changed")
    XCTAssertEqual(try Data(contentsOf: hidden), hiddenBytes, "hidden folder touched")
    var afterFirst: [URL: [UInt8]] = [:]
    for (file, original) in originals {
      let bytes = [UInt8](try Data(contentsOf: file))
      afterFirst[file] = bytes
      let name = file.lastPathComponent
      XCTAssertEqual(try PNGDecoder().decode(bytes), try PNGDecoder().decode(original), name)
      XCTAssertEqual(imageData(bytes), imageData(original), "\(name): image data rewritten")
      XCTAssertEqual(bytes.count, original.count + 77, name)
      let digest = try XCTUnwrap(PNGPixelDigest.read(fromPNG: bytes), name)
      XCTAssertTrue(digest.matches(try PNGDecoder().decode(original)), name)
    }

    let second = try addPixelDigests([folder.path])
    XCTAssertEqual(second.exitStatus, .writeFailed, second.all)
    XCTAssertTrue(
      second.output.contains(
        "added a pixel digest to 0 PNG files; \(originals.count) already had one"), second.all)
    for (file, bytes) in afterFirst {
      XCTAssertEqual([UInt8](try Data(contentsOf: file)), bytes, "second run changed \(file)")
    }

    try FileManager.default.removeItem(at: malformed)
    let check = try addPixelDigests(["--check", folder.path])
    XCTAssertEqual(check.exitStatus, .success, check.all)
  }

  func testCheck_filesWithoutDigest_exitFourAndWriteNothing() throws {
    let folder = try makeTemporaryFolder(self)
    let originals = try copyFixturePNGs(into: folder)
    let encoded = folder.appendingPathComponent("ours.png")
    try Data(PNGEncoder().encode(RGBAImage(width: 3, height: 2, color: .red))).write(to: encoded)
    let lacking = originals.keys.sorted { $0.path < $1.path }[0]

    let check = try addPixelDigests(["--check", lacking.path, encoded.path])
    XCTAssertEqual(check.exitStatus, .checkFoundChanges, check.all)
    XCTAssertTrue(check.output.contains("no pixel digest: \(lacking.path)"), check.all)
    XCTAssertFalse(check.output.contains("no pixel digest: \(encoded.path)"), check.all)
    XCTAssertTrue(check.output.contains("1 of 2 PNG files lack a pixel digest"), check.all)
    XCTAssertTrue(check.error.contains("run `swift run add-pixel-digests"), check.all)
    for (file, original) in originals {
      XCTAssertEqual([UInt8](try Data(contentsOf: file)), original, "--check wrote \(file)")
    }
  }

  func testMissingPath_isAUsageErrorNamingIt() throws {
    let missing = try makeTemporaryFolder(self).appendingPathComponent("nowhere")
    let run = try addPixelDigests([missing.path])
    XCTAssertEqual(run.exitStatus, .invalidArguments, run.all)
    XCTAssertTrue(run.error.contains("\(missing.path): could not find"), run.all)
  }

  // MARK: Helpers

  private func addPixelDigests(_ arguments: [String]) throws -> ProcessOutput {
    try runProcess(try builtProduct("add-pixel-digests").path, arguments)
  }

  /// Copies every decoder fixture PNG into `folder` and returns the copies with their bytes.
  private func copyFixturePNGs(into folder: URL) throws -> [URL: [UInt8]] {
    let source = fixtures.appendingPathComponent("png")
    var copies: [URL: [UInt8]] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: source.path)
    where name.hasSuffix(".png") {
      let copy = folder.appendingPathComponent(name)
      try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: copy)
      copies[copy] = [UInt8](try Data(contentsOf: copy))
    }
    XCTAssertGreaterThan(copies.count, 20)
    return copies
  }

  /// The IDAT chunks of a PNG, whole, in order.
  private func imageData(_ png: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    var offset = 8
    while offset + 12 <= png.count {
      let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
      if png[(offset + 4)..<(offset + 8)].elementsEqual("IDAT".utf8) {
        result += png[offset..<(offset + 12 + length)]
      }
      offset += 12 + length
    }
    return result
  }
}
