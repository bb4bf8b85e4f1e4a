import Foundation
import ReferenceContracts
import XCTest

@testable import ReferenceImageTesting

/// What the coordinator records for `reference-shards run`: each XCTest test's duration by its
/// listing name, and a manifest-only archive when a shard's process stored no image.
final class ShardRunManifestTests: XCTestCase {
  private func coordinator(output: URL, shard: String?) -> ImageCoordinator {
    var environment = ["IMAGE_GENERATION_MODE": "1", "IMAGE_GENERATION_OUTPUT": output.path]
    environment["IMAGE_GENERATION_SHARD"] = shard
    return ImageCoordinator(environment: ImageTestEnvironment(environment: environment))
  }

  func testFinishRun_underTheRunner_noImage_writesTheManifestWithDurations() throws {
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    let coordinator = coordinator(output: output, shard: "1/4")
    coordinator.testStarted("AlphaTests.testNoImage", isXCTest: true)
    coordinator.xcTestStarted(listingName: "Mod.AlphaTests/testNoImage")
    coordinator.xcTestFinished(listingName: "Mod.AlphaTests/testNoImage")
    let archive = try XCTUnwrap(coordinator.finishRun())
    let archived = try ArchiveContents(archive)
    XCTAssertTrue(archived.files.isEmpty)
    let manifest = try XCTUnwrap(archived.manifest)
    XCTAssertEqual(manifest.images, [])
    XCTAssertEqual(manifest.completion, .finished)
    XCTAssertEqual(manifest.testDurations?.map(\.test), ["Mod.AlphaTests/testNoImage"])
    XCTAssertGreaterThanOrEqual(try XCTUnwrap(manifest.testDurations?.first?.seconds), 0)
    XCTAssertEqual(contents(of: output), [archive.lastPathComponent], "no staging folder left")
  }

  func testFinishRun_underTheRunner_noTestRan_writesNothing() throws {
    // The process SwiftPM starts to enumerate tests runs none.
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    XCTAssertNil(coordinator(output: output, shard: "0/2").finishRun())
    XCTAssertEqual(contents(of: output), [])
  }

  func testFinishRun_outsideTheRunner_noImage_writesNothing() throws {
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    let coordinator = coordinator(output: output, shard: nil)
    coordinator.testStarted("AlphaTests.testNoImage", isXCTest: true)
    coordinator.xcTestStarted(listingName: "Mod.AlphaTests/testNoImage")
    coordinator.xcTestFinished(listingName: "Mod.AlphaTests/testNoImage")
    XCTAssertNil(coordinator.finishRun())
    XCTAssertEqual(contents(of: output), [])
  }

  func testListingName_linuxAndApplePlatformNames() {
    XCTAssertEqual(
      CoordinatorObserver.listingName(typeName: "Mod.AlphaTests", caseName: "AlphaTests.testA"),
      "Mod.AlphaTests/testA")
    XCTAssertEqual(
      CoordinatorObserver.listingName(typeName: "Mod.AlphaTests", caseName: "-[AlphaTests testA]"),
      "Mod.AlphaTests/testA")
  }

  func testListingName_ofThisTest() {
    XCTAssertEqual(
      CoordinatorObserver.listingName(of: self),
      "ReferenceImageTestingTests.ShardRunManifestTests/testListingName_ofThisTest")
  }

  func testManifest_withoutDurations_decodesAndEncodesWithoutTheField() throws {
    let manifest = ArchiveManifest(
      toolVersion: "t", runID: "r",
      worker: .init(host: "h", pid: 1, os: "o", swiftVersion: "6.3", ci: [:]), mode: "all",
      startedAt: Date(timeIntervalSince1970: 0), endedAt: nil, completion: .finished, tests: [],
      images: [], verifiedReferences: [])
    let data = try manifest.encoded()
    XCTAssertFalse(String(decoding: data, as: UTF8.self).contains("testDurations"))
    XCTAssertNil(try ArchiveManifest.decode(data, source: "m").testDurations)
  }
}
