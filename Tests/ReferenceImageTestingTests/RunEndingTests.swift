import Foundation
import ReferenceContracts
import XCTest

@testable import ReferenceImageTesting

/// How a run ends, decided from its finished manifest and settings alone: the decision reads
/// and writes no folder (the staging folder is made only to be named).
final class RunEndingTests: XCTestCase {
  private let output = URL(fileURLWithPath: "/out")
  private let package = URL(fileURLWithPath: "/package")
  private var staging: StagingFolder!

  override func setUpWithError() throws {
    staging = try StagingFolder(archiveFolder: try makeTemporaryFolder(self), runName: "run")
  }

  private func manifest(
    images: Int = 0, unchanged: Int = 0, tests: [String] = [],
    uses: [ArchiveManifest.ReferenceUse]? = nil
  ) -> ArchiveManifest {
    ArchiveManifest(
      toolVersion: "test", runID: "r",
      worker: .init(host: "h", pid: 1, os: "o", swiftVersion: "6", ci: [:]),
      mode: .all, startedAt: Date(), endedAt: Date(), completion: .finished, tests: tests,
      images: (0..<images).map {
        .init(
          path: "i\($0).png", test: "T.t", width: 1, height: 1, byteCount: 1,
          pngSHA256: SHA256Digest(of: [1]), pixelSHA256: SHA256Digest(of: [2]))
      },
      unchangedImages: (0..<unchanged).map {
        .init(
          path: "u\($0).png", test: "T.t", width: 1, height: 1,
          pixelSHA256: SHA256Digest(of: [2]), pngSHA256: SHA256Digest(of: [1]))
      },
      verifiedReferences: [], referenceUses: uses)
  }

  private func environment(shard: String? = nil, output: URL? = nil) -> ImageTestEnvironment {
    var variables = ["IMAGE_GENERATION_MODE": "0"]
    variables["IMAGE_GENERATION_OUTPUT"] = output?.path
    variables["IMAGE_GENERATION_SHARD"] = shard
    return ImageTestEnvironment(environment: variables)
  }

  private let use = ArchiveManifest.ReferenceUse(
    path: "a.png", test: "T.t", file: "Tests/T.swift", line: 1, verdict: .passed)

  func testStoredOrUnchangedImages_archiveTheStagingFolder() {
    for manifest in [manifest(images: 1), manifest(unchanged: 1)] {
      XCTAssertEqual(
        RunEnding(
          manifest: manifest, staging: staging, archiveFolder: output,
          environment: environment(), assertionsPackage: package),
        .archive(staging: staging, folder: output))
    }
  }

  func testShardWhoseTestsRan_noImage_archivesTheManifestAlone() {
    XCTAssertEqual(
      RunEnding(
        manifest: manifest(tests: ["T.t"]), staging: nil, archiveFolder: nil,
        environment: environment(shard: "0/2", output: output), assertionsPackage: nil),
      .archive(staging: nil, folder: output))
    XCTAssertEqual(
      RunEnding(
        manifest: manifest(), staging: nil, archiveFolder: nil,
        environment: environment(shard: "0/2", output: output), assertionsPackage: nil),
      .nothing(discarding: nil), "a shard's process that ran no test proves nothing")
  }

  func testAssertionsWithoutImages_writeARunRecordInTheirPackagesFolder() {
    XCTAssertEqual(
      RunEnding(
        manifest: manifest(tests: ["T.t"], uses: [use]), staging: staging, archiveFolder: output,
        environment: environment(), assertionsPackage: package),
      .runRecord(
        folder: package.appendingPathComponent(".build/reference-images"), discarding: staging))
  }

  func testNoAssertion_orNoPackage_writesNothing() {
    XCTAssertEqual(
      RunEnding(
        manifest: manifest(tests: ["T.t"]), staging: nil, archiveFolder: nil,
        environment: environment(), assertionsPackage: package),
      .nothing(discarding: nil))
    XCTAssertEqual(
      RunEnding(
        manifest: manifest(uses: [use]), staging: nil, archiveFolder: nil,
        environment: environment(), assertionsPackage: nil),
      .nothing(discarding: nil))
  }
}
