import Foundation
import ReferenceImageCore
import ReferenceStore
import TestSupport
import XCTest

@testable import ReferenceImageTesting

/// Verify against pointers: a matching render passes without the object, a differing one is
/// compared with the object from the cache or the store, and a missing object fails by name.
/// Generation records a differing render without fetching the object it does not compare with.
final class PointerReferenceTests: FailureCapturingTestCase {
  private struct Setup {
    var package: TemporaryPackage
    var location: ReferenceLocation
    var store: FolderStore
    var cache: URL
    var pointer: ReferencePointer
    var png: [UInt8]
    var image: RGBAImage

    func stores(configured: Bool) throws -> PackageStores {
      if configured {
        let configuration = #"{"version": 1, "store": "folder", "folder": "../store"}"#
        try Data(configuration.utf8).write(
          to: package.root.appendingPathComponent(StoreConfiguration.fileName))
      }
      return PackageStores(environment: ["IMAGE_REFERENCE_CACHE": cache.path])
    }
  }

  private func setup(storing: Bool) throws -> Setup {
    let package = try TemporaryPackage(self)
    let location = try package.location("bars")
    let image = try sampleImage(seed: 3)
    let png = try PNGEncoder().encode(image)
    let pointer = try XCTUnwrap(ReferencePointer(png: png))
    try FileManager.default.createDirectory(
      at: location.url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(pointer.bytes).write(to: URL(fileURLWithPath: location.url.path + ".ref"))
    let store = FolderStore(
      folder: package.root.deletingLastPathComponent().appendingPathComponent("store"))
    if storing { try StoredObject.upload(png, to: store) }
    let cache = package.root.deletingLastPathComponent().appendingPathComponent("cache")
    return Setup(
      package: package, location: location, store: store, cache: cache, pointer: pointer, png: png,
      image: image)
  }

  func testMatchingRender_passesWithNoStoreAndNoCache() throws {
    let setup = try setup(storing: false)
    let state = ReferenceState.read(
      at: setup.location, comparing: setup.image, by: .exact, bound: .none,
      stores: try setup.stores(configured: false))
    XCTAssertEqual(state, .matchesByDigest)
    XCTAssertFalse(FileManager.default.fileExists(atPath: setup.cache.path), "nothing fetched")
  }

  func testDifferingRender_isComparedWithTheStoredObject_andTheCacheKeepsIt() throws {
    let setup = try setup(storing: true)
    var pixels = setup.image.pixels
    pixels[0] ^= 0xFF
    pixels[4] ^= 0xFF
    let changed = try RGBAImage(
      width: setup.image.width, height: setup.image.height, pixels: pixels)
    let state = ReferenceState.read(
      at: setup.location, comparing: changed, by: .exact, bound: .none,
      stores: try setup.stores(configured: true))
    guard case .compared(let reference, let result) = state else {
      return XCTFail("compared with the stored reference, not \(state)")
    }
    XCTAssertEqual(reference, setup.image)
    XCTAssertEqual(result.differences?.differingPixelCount, 2)
    XCTAssertTrue(try FolderStore(folder: setup.cache).has(setup.pointer.object), "cached")
  }

  func testDifferingRender_withTheObjectMissing_failsNamingThePointerAndTheStore() throws {
    let setup = try setup(storing: false)
    let other = try sampleImage(seed: 9)
    let state = ReferenceState.read(
      at: setup.location, comparing: other, by: .exact, bound: .none,
      stores: try setup.stores(configured: true))
    guard case .unreadable(let error) = state else { return XCTFail("\(state)") }
    let message = error.description
    XCTAssertTrue(message.contains("bars.png.ref"), message)
    XCTAssertTrue(message.contains(setup.pointer.object.hex), message)
    XCTAssertTrue(message.contains(setup.store.folder.path), message)
    let decision = ImageDecision(mode: .verify, reference: state)
    XCTAssertEqual(
      decision, .fail(.unreadableReference(error), keepsRender: true),
      "an object that cannot be had never passes")
  }

  func testPNGBesideItsPointer_isRefusedByName() throws {
    let setup = try setup(storing: true)
    try Data(setup.png).write(to: setup.location.url)
    let state = ReferenceState.read(
      at: setup.location, comparing: setup.image, by: .exact, bound: .none,
      stores: try setup.stores(configured: true))
    XCTAssertEqual(state, .unreadable(.referenceBesidePointer(path: setup.location.url.path)))
  }

  func testGeneration_differingRender_isStoredWithoutFetchingTheObject() throws {
    let setup = try setup(storing: true)
    let other = try sampleImage(seed: 9)
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    func run(mode: String) throws -> ImageCoordinator {
      var assertion = ImageAssertion(
        image: other, name: "bars", comparison: .exact, bound: .none, referenceFolder: nil,
        context: TestContext(fileID: #fileID, filePath: #filePath, line: #line, column: #column),
        coordinator: makeCoordinator(output: output.appendingPathComponent(mode), mode: mode))
      assertion.testFile = setup.package.testFile()
      assertion.stores = try setup.stores(configured: true)
      capturing = true
      assertion.run()
      capturing = false
      return assertion.coordinator
    }
    let generation = try run(mode: "1")
    XCTAssertEqual(captured, [], "mode all records and never fails")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: setup.cache.path),
      "mode all compares nothing, so it fetches no object")
    let archive = try XCTUnwrap(generation.finishRun())
    let contents = try ArchiveContents(archive)
    XCTAssertEqual(contents.manifest?.images.map(\.path), [setup.location.relativePath])
    XCTAssertEqual(
      try PNGDecoder().decode(try XCTUnwrap(contents.files[setup.location.relativePath])), other)
    // The control: verify compares the same render with the stored object, fetching it.
    _ = try run(mode: "0").finishRun()
    XCTAssertEqual(captured.count, 1, "\(captured)")
    XCTAssertTrue(try FolderStore(folder: setup.cache).has(setup.pointer.object), "fetched")
  }

  func testGeneration_recordsAMatchingRenderAsUnchanged_boundToTheObject() throws {
    let setup = try setup(storing: false)
    let unchanged = UnchangedReference.read(at: setup.location, matching: setup.image)
    XCTAssertEqual(
      unchanged,
      UnchangedReference(
        pngSHA256: setup.pointer.object.digest,
        pixelSHA256: setup.pointer.pixels.pixelSHA256))
    XCTAssertNil(UnchangedReference.read(at: setup.location, matching: try sampleImage(seed: 4)))
  }
}
