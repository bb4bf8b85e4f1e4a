import Foundation
import XCTest

@testable import ReferenceImageTesting

/// `assertImage`'s decision for every generation mode and every state of the reference, decided
/// in-process with no file, archive or test framework involved.
final class ImageDecisionTests: XCTestCase {
  private var reference: RGBAImage!
  private var states: [String: ReferenceState]!

  override func setUpWithError() throws {
    reference = try sampleImage(seed: 3, width: 10, height: 10)
    var twoPixelsOff = reference!
    twoPixelsOff[1, 1] = RGBAColor(red: 255, green: 0, blue: 255)
    twoPixelsOff[8, 8] = RGBAColor(red: 255, green: 0, blue: 255)
    let larger = try sampleImage(seed: 3, width: 11, height: 10)
    states = [
      "missing": .missing,
      "unreadable": .unreadable(.unreadableReference(path: "/p/a.png", reason: "not a PNG")),
      "git lfs pointer": .gitLFSPointer(path: "/p/a.png"),
      "matches by digest": .matchesByDigest,
      "identical": compared(reference, bound: .none),
      "within bound": compared(twoPixelsOff, bound: .maximumDifferingPixels(2)),
      "mismatched": compared(twoPixelsOff, bound: .maximumDifferingPixels(1)),
      "size mismatch": compared(larger, bound: .none),
    ]
  }

  func testDecision_everyComparingModeAndReferenceState() {
    let unreadable = states["unreadable"]!
    guard case .unreadable(let error) = unreadable else { return XCTFail("fixture") }
    let mismatched = states["mismatched"]!
    let sizeMismatch = states["size mismatch"]!
    let pass = ImageDecision(storesImage: false, failure: nil)
    let lfs = ImageDecision(
      storesImage: false, failure: .unreadableReference(.gitLFSPointer(path: "/p/a.png")))
    // (mode, state) -> decision; every cell of the table is listed.
    let expected: [(GenerationMode, String, ImageDecision)] = [
      // Verify keeps the render of a failed comparison for review, and still fails.
      (.verify, "missing", .init(storesImage: true, failure: .missingReference(recorded: false))),
      (.verify, "unreadable", .init(storesImage: true, failure: .unreadableReference(error))),
      (.verify, "git lfs pointer", lfs),
      (.verify, "matches by digest", pass),
      (.verify, "identical", pass),
      (.verify, "within bound", pass),
      (.verify, "mismatched", mismatch(mismatched, recorded: false, stores: true)),
      (.verify, "size mismatch", mismatch(sizeMismatch, recorded: false, stores: true)),
      (.missing, "missing", .init(storesImage: true, failure: nil)),
      (.missing, "unreadable", .init(storesImage: true, failure: .unreadableReference(error))),
      (.missing, "git lfs pointer", lfs),
      (.missing, "matches by digest", pass),
      (.missing, "identical", pass),
      (.missing, "within bound", pass),
      (.missing, "mismatched", mismatch(mismatched, recorded: false, stores: false)),
      (.missing, "size mismatch", mismatch(sizeMismatch, recorded: false, stores: false)),
      (.failed, "missing", .init(storesImage: true, failure: .missingReference(recorded: true))),
      (.failed, "unreadable", .init(storesImage: true, failure: .unreadableReference(error))),
      (.failed, "git lfs pointer", lfs),
      (.failed, "matches by digest", pass),
      (.failed, "identical", pass),
      (.failed, "within bound", pass),
      (.failed, "mismatched", mismatch(mismatched, recorded: true, stores: true)),
      (.failed, "size mismatch", mismatch(sizeMismatch, recorded: true, stores: true)),
    ]
    XCTAssertEqual(Set(expected.map(\.1)), Set(states.keys), "every state is covered")
    for mode in [GenerationMode.verify, .missing, .failed] {
      XCTAssertEqual(expected.filter { $0.0 == mode }.count, states.count, "\(mode)")
    }
    for (mode, state, decision) in expected {
      XCTAssertEqual(
        ImageDecision(mode: mode, reference: states[state]!), decision, "\(mode) \(state)")
    }
  }

  func testDecision_allMode_storesWithoutReadingTheReference() {
    for state in states.values {
      var reads = 0
      let decision = ImageDecision(mode: .all, reference: read(state, counting: &reads))
      XCTAssertEqual(decision, ImageDecision(storesImage: true, failure: nil))
      XCTAssertEqual(reads, 0)
    }
  }

  func testDecision_allMode_recordsAnUnchangedReferenceInsteadOfStoring() {
    let unchanged = UnchangedReference(
      pngSHA256: SHA256Digest(of: Array("png".utf8)),
      pixelSHA256: SHA256Digest(of: Array("pixels".utf8)))
    for state in states.values {
      var reads = 0
      let decision = ImageDecision(
        mode: .all, reference: read(state, counting: &reads), unchangedReference: unchanged)
      XCTAssertEqual(
        decision, ImageDecision(storesImage: false, failure: nil, unchangedReference: unchanged))
      XCTAssertEqual(reads, 0, "all mode never decodes the reference")
    }
  }

  func testDecision_allMode_storesWhenNoDigestMatches() {
    let decision = ImageDecision(mode: .all, reference: .missing, unchangedReference: nil)
    XCTAssertEqual(decision, ImageDecision(storesImage: true, failure: nil))
  }

  func testDecision_allModeReencoding_storesWithoutLookingForAMatch() {
    var looks = 0
    let unchanged = UnchangedReference(
      pngSHA256: SHA256Digest(of: Array("png".utf8)),
      pixelSHA256: SHA256Digest(of: Array("pixels".utf8)))
    let decision = ImageDecision(
      mode: .all, reference: .missing,
      unchangedReference: { () -> UnchangedReference? in
        looks += 1
        return unchanged
      }(), reencodes: true)
    XCTAssertEqual(decision, ImageDecision(storesImage: true, failure: nil))
    XCTAssertEqual(looks, 0)
  }

  func testDecision_comparingModes_neverLookForAnUnchangedReference() {
    // They decide from the comparison as before: a digest match stores nothing in any case.
    for mode in [GenerationMode.verify, .missing, .failed, .invalid("x")] {
      var looks = 0
      _ = ImageDecision(
        mode: mode, reference: .matchesByDigest,
        unchangedReference: { () -> UnchangedReference? in
          looks += 1
          return nil
        }())
      XCTAssertEqual(looks, 0, "\(mode)")
    }
  }

  func testDecision_invalidMode_failsNamingTheValueWithoutReadingOrStoring() {
    for state in states.values {
      var reads = 0
      let decision = ImageDecision(mode: .invalid("yes"), reference: read(state, counting: &reads))
      XCTAssertEqual(decision, ImageDecision(storesImage: false, failure: .invalidMode("yes")))
      XCTAssertEqual(reads, 0)
    }
  }

  func testDecision_comparingModes_readTheReferenceOnce() {
    for mode in [GenerationMode.verify, .missing, .failed] {
      var reads = 0
      _ = ImageDecision(mode: mode, reference: read(.missing, counting: &reads))
      XCTAssertEqual(reads, 1, "\(mode)")
    }
  }

  // MARK: Artifacts and messages

  func testArtifacts_onlyMissingUnrecordedAndMismatchesWriteThem() {
    guard case .compared(let image, let result) = states["mismatched"]! else {
      return XCTFail("fixture")
    }
    let error = ReferenceImageError.unreadableReference(path: "/p", reason: "r")
    XCTAssertEqual(ImageDecision.Failure.missingReference(recorded: false).artifacts, .actual)
    XCTAssertEqual(ImageDecision.Failure.missingReference(recorded: true).artifacts, .none)
    XCTAssertEqual(ImageDecision.Failure.unreadableReference(error).artifacts, .none)
    XCTAssertEqual(ImageDecision.Failure.invalidMode("x").artifacts, .none)
    for recorded in [true, false] {
      XCTAssertEqual(
        ImageDecision.Failure.mismatch(reference: image, result: result, recorded: recorded)
          .artifacts,
        .actualReferenceAndDifference(reference: image))
    }
  }

  func testMessages_keepTheirWording() throws {
    let package = try TemporaryPackage(self)
    let location = try package.location("bars")
    let path = location.relativePath
    guard case .compared(let image, let result) = states["mismatched"]! else {
      return XCTFail("fixture")
    }
    func message(_ failure: ImageDecision.Failure) -> String {
      failure.message(at: location, comparison: .exact, artifacts: "artifacts: actual A")
    }
    // The command that lands a kept render is the assertion's to add (it knows the archive):
    // DailyLoopEndToEndTests runs it as printed.
    XCTAssertEqual(
      message(.missingReference(recorded: false)), "no reference at \(path); artifacts: actual A")
    XCTAssertEqual(message(.missingReference(recorded: true)), "no reference at \(path)")
    XCTAssertEqual(
      message(.mismatch(reference: image, result: result, recorded: false)),
      "Tests/ChartTests/__References__/BarChartTests/bars.png: \(result); artifacts: actual A")
    XCTAssertEqual(
      message(.mismatch(reference: image, result: result, recorded: true)),
      "Tests/ChartTests/__References__/BarChartTests/bars.png: \(result); "
        + "artifacts: actual A")
    let error = ReferenceImageError.unreadableReference(path: path, reason: "not a PNG")
    XCTAssertEqual(
      message(.unreadableReference(error)), "reference \(path) is unreadable: not a PNG",
      "the landing command that follows restores it, not a delete-and-record recipe")
    XCTAssertEqual(message(.invalidMode("yes")), GenerationMode.invalidMessage("yes"))
  }

  // MARK: Reading the reference

  func testUnchangedReference_onlyATrustedDigestOfTheSamePixels() throws {
    let package = try TemporaryPackage(self)
    let image = try sampleImage(seed: 4)
    func read(_ name: String) throws -> UnchangedReference? {
      UnchangedReference.read(at: try package.location(name), matching: image)
    }
    XCTAssertNil(try read("absent"))
    let png = try PNGEncoder().encode(image)
    try write(png, to: try package.location("same"))
    XCTAssertEqual(
      try read("same"),
      UnchangedReference(
        pngSHA256: SHA256Digest(of: png), pixelSHA256: SHA256Digest(of: image.pixels)))
    var changed = image
    changed[0, 0] = RGBAColor(red: 1, green: 2, blue: 3)
    try write(try PNGEncoder().encode(changed), to: try package.location("changed"))
    XCTAssertNil(try read("changed"))
    try write(try withoutDigestChunk(png), to: try package.location("plain"))
    XCTAssertNil(try read("plain"), "a reference without a digest is encoded anew")
    let grafted = try grafting(
      imageDataOf: try PNGEncoder().encode(changed), onto: png)
    try write(grafted, to: try package.location("grafted"))
    XCTAssertNil(try read("grafted"), "a digest that no longer vouches for the data")
  }

  func testPixelHash_computedOnce_byTheEncoderOrTheCheckThatNeededIt() throws {
    let package = try TemporaryPackage(self)
    let image = try sampleImage(seed: 4)
    var changed = image
    changed[0, 0] = RGBAColor(red: 1, green: 2, blue: 3)
    let location = try package.location("changed")
    try write(try PNGEncoder().encode(changed), to: location)
    let pixelHash = RenderedPixelHash(image)
    XCTAssertNil(pixelHash.computed, "nothing hashed before it is asked for")
    // Generation: a version 2 digest is checked with the fast hash alone; the SHA-256 of a
    // changed render is left to the encoder, on the pool.
    XCTAssertNil(UnchangedReference.read(at: location, matching: image, pixelHash: pixelHash))
    XCTAssertNil(pixelHash.computed, "the test's thread does not hash a changed render")
    guard
      case .compared = ReferenceState.read(
        at: location, comparing: image, by: .exact, bound: .none, pixelHash: pixelHash)
    else { return XCTFail("other pixels are decoded and compared") }
    XCTAssertNil(pixelHash.computed, "nor does comparing it")
    let (png, digest) = try PNGEncoder().encodeWithDigest(
      image, knownPixelSHA256: pixelHash.computed)
    XCTAssertEqual(digest.pixelSHA256.hex, SHA256.hex(image.pixels))
    XCTAssertEqual(PNGPixelDigest.read(fromPNG: png)?.pixelSHA256.hex, SHA256.hex(image.pixels))
    XCTAssertEqual(try PNGDecoder().decode(png), image)
    // When a check did hash (a version 1 digest), the encoder takes the hash instead of
    // computing it again, and its digest chunk vouches for it.
    let computed = pixelHash.bytes
    XCTAssertEqual(SHA256.hexString(computed), SHA256.hex(image.pixels))
    let (known, knownDigest) = try PNGEncoder().encodeWithDigest(
      image, knownPixelSHA256: computed)
    XCTAssertEqual(known, png)
    XCTAssertEqual(knownDigest, digest)

    // A reference of another size never makes the render be hashed.
    let small = try RGBAImage(width: 3, height: 2, color: .white)
    let otherSize = RenderedPixelHash(small)
    XCTAssertNil(UnchangedReference.read(at: location, matching: small, pixelHash: otherSize))
    XCTAssertNil(otherSize.computed)
  }

  func testRead_fileStates() throws {
    let package = try TemporaryPackage(self)
    let image = try sampleImage(seed: 4)
    func read(_ name: String) throws -> ReferenceState {
      ReferenceState.read(
        at: try package.location(name), comparing: image, by: .exact, bound: .none)
    }
    XCTAssertEqual(try read("absent"), .missing)

    // PNGEncoder writes the pixel digest: the same pixels match without a decode.
    try write(try PNGEncoder().encode(image), to: try package.location("same"))
    XCTAssertEqual(try read("same"), .matchesByDigest)

    // Other pixels, or a file without a digest, are decoded and compared.
    var changed = image
    changed[0, 0] = RGBAColor(red: 1, green: 2, blue: 3)
    try write(try PNGEncoder().encode(changed), to: try package.location("changed"))
    guard case .compared(let decoded, let result) = try read("changed") else {
      return XCTFail("a PNG with other pixels is decoded and compared")
    }
    XCTAssertEqual(decoded, changed)
    XCTAssertFalse(result.passed)
    try write(
      try withoutDigestChunk(try PNGEncoder().encode(image)), to: try package.location("plain"))
    guard case .compared(let plainDecoded, let plainResult) = try read("plain") else {
      return XCTFail("a PNG without a digest is decoded and compared")
    }
    XCTAssertEqual(plainDecoded, image)
    XCTAssertTrue(plainResult.passed)

    // Another tool changed the pixels but kept the digest chunk: the digest no longer vouches
    // for the image data, so the reference is decoded, and the edit fails the comparison.
    let grafted = try grafting(
      imageDataOf: try PNGEncoder().encode(changed), onto: try PNGEncoder().encode(image))
    try write(grafted, to: try package.location("grafted"))
    guard case .compared(let graftedDecoded, let graftedResult) = try read("grafted") else {
      return XCTFail("pixels changed under a kept digest are decoded and compared")
    }
    XCTAssertEqual(graftedDecoded, changed)
    XCTAssertFalse(graftedResult.passed)

    // The same pixels compressed anew under the kept chunk: decoded, and they still pass.
    let reencoded = try grafting(
      imageDataOf: try PNGEncoder(setting: .small).encode(image),
      onto: try PNGEncoder(setting: .fast).encode(image))
    XCTAssertNotEqual(reencoded, try PNGEncoder(setting: .fast).encode(image))
    try write(reencoded, to: try package.location("reencoded"))
    guard case .compared(let reencodedDecoded, let reencodedResult) = try read("reencoded") else {
      return XCTFail("re-encoded image data under a kept digest is decoded and compared")
    }
    XCTAssertEqual(reencodedDecoded, image)
    XCTAssertTrue(reencodedResult.passed)

    try write(Array("not a PNG".utf8), to: try package.location("text"))
    guard case .unreadable(.unreadableReference(let path, _)) = try read("text") else {
      return XCTFail("a file that is not a PNG is unreadable")
    }
    XCTAssertEqual(path, try package.location("text").url.path)

    let pointer = try package.location("pointer")
    try write(lfsPointer(to: try PNGEncoder().encode(image)), to: pointer)
    XCTAssertEqual(try read("pointer"), .gitLFSPointer(path: pointer.url.path))
  }

  func testLoadReference_gitLFSPointer_throwsNamingGitLFSPull() throws {
    let package = try TemporaryPackage(self)
    let location = try package.location("pointer")
    try write(lfsPointer(to: try PNGEncoder().encode(try sampleImage(seed: 2))), to: location)
    XCTAssertThrowsError(try ReferenceImages.loadReference(at: location)) { error in
      XCTAssertEqual(error as? ReferenceImageError, .gitLFSPointer(path: location.url.path))
      let text = "\(error)"
      XCTAssertTrue(text.contains("\(location.url.path) is a Git LFS pointer file"), text)
      XCTAssertTrue(text.contains("run `git lfs pull`"), text)
      XCTAssertFalse(text.contains("IMAGE_GENERATION_MODE"), "recording is not the fix: \(text)")
    }
  }

  // MARK: Helpers

  /// A kept failure of a test that ignores regions records the pixels its verdict compared,
  /// so annotations and the merge's summary count as the failure message does.
  func testFailureRecord_ofIgnoredRegions_countsTheComparedPixels() throws {
    var image = reference!
    image[1, 1] = RGBAColor(red: 255, green: 0, blue: 255)
    let comparison = ImageComparison.exact.ignoring([IgnoredRegion(x: 5, y: 0, width: 5, height: 4)]
    )
    let result = comparison.compare(image, to: reference)
    let failure = ImageDecision.Failure.mismatch(
      reference: reference, result: result, recorded: true)
    let record = try XCTUnwrap(
      failure.comparisonRecord(image: image, comparison: comparison, file: "T.swift", line: 3))
    XCTAssertEqual(record.totalPixels, 100 - 20)
    XCTAssertEqual(record.differingPixels, 1)
    XCTAssertEqual(record.comparison, "exact, ignoring 1 region")
    XCTAssertTrue(record.verdict.hasPrefix("1 of 80 compared pixels differs"), record.verdict)
  }

  private func compared(_ image: RGBAImage, bound: DifferenceBound) -> ReferenceState {
    .compared(
      reference: reference,
      result: ImageComparison.exact.compare(image, to: reference, bound: bound)
    )
  }

  private func mismatch(_ state: ReferenceState, recorded: Bool, stores: Bool) -> ImageDecision {
    guard case .compared(let image, let result) = state else { preconditionFailure() }
    return ImageDecision(
      storesImage: stores,
      failure: .mismatch(reference: image, result: result, recorded: recorded))
  }

  private func read(_ state: ReferenceState, counting reads: inout Int) -> ReferenceState {
    reads += 1
    return state
  }

  /// The PNG without its `riDG` chunk, as a file from another tool would be.
  private func withoutDigestChunk(_ png: [UInt8]) throws -> [UInt8] {
    let digest = PNGChunks.type("riDG")
    let kept =
      Array(png[0..<8])
      + (try chunks(of: png)).filter { $0.type != digest }
      .flatMap { png[$0.whole] }
    XCTAssertLessThan(kept.count, png.count, "the encoder wrote a digest chunk")
    return kept
  }

  /// `target`'s chunks up to its image data (its digest chunk among them), then `source`'s
  /// image data and end: what a tool that rewrites pixels but copies unknown chunks leaves.
  private func grafting(imageDataOf source: [UInt8], onto target: [UInt8]) throws -> [UInt8] {
    let head = try chunks(of: target).prefix { $0.type != PNGChunks.idat }
    let tail = try chunks(of: source).drop { $0.type != PNGChunks.idat }
    return Array(target[0..<8]) + head.flatMap { target[$0.whole] }
      + tail.flatMap { source[$0.whole] }
  }

  private func chunks(of png: [UInt8]) throws -> [PNGChunks.Chunk] {
    try XCTUnwrap(png.withUnsafeBytes { PNGChunks($0) }, "a PNG").chunks
  }

  /// The pointer file Git LFS leaves for `file` until it is fetched.
  private func lfsPointer(to file: [UInt8]) -> [UInt8] {
    Array(
      ("version https://git-lfs.github.com/spec/v1\noid sha256:\(SHA256.hex(file))\n"
        + "size \(file.count)\n").utf8)
  }

  private func write(_ bytes: [UInt8], to location: ReferenceLocation) throws {
    try FileManager.default.createDirectory(
      at: location.url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: location.url)
  }
}
