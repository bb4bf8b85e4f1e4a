import Foundation
import ReferenceContracts
import ReferenceImageCore
import XCTest

/// Version 2 of the manifest names every test as `swift test list` does; version 1 archives are
/// read as they were written, and a version this code does not know is refused by its number.
final class ArchiveManifestVersionTests: XCTestCase {
  private func manifest(version: Int, test: String) -> ArchiveManifest {
    ArchiveManifest(
      formatVersion: version, toolVersion: "ReferenceImages test", runID: "r",
      worker: .init(host: "h", pid: 1, os: "Linux", swiftVersion: "6.3", ci: [:]),
      mode: "all", startedAt: Date(timeIntervalSince1970: 1_800_000_000), endedAt: nil,
      completion: .finished, tests: [test],
      images: [
        .init(
          path: "Tests/T/__References__/a.png", test: test, width: 1, height: 1, byteCount: 1,
          pngSHA256: SHA256Digest(of: [1]), pixelSHA256: SHA256Digest(of: [2]))
      ],
      verifiedReferences: [],
      referenceUses: [
        .init(
          path: "Tests/T/__References__/a.png", test: test, file: "F", line: 1,
          verdict: .recorded)
      ],
      testDurations: [.init(test: "M.C/testA", seconds: 1)])
  }

  func testCurrentVersion_isTwo() throws {
    XCTAssertEqual(ArchiveManifest.currentFormatVersion, 2)
    let written = manifest(version: ArchiveManifest.currentFormatVersion, test: "M.C/testA")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: try written.encoded()) as? [String: Any])
    XCTAssertEqual(json["formatVersion"] as? Int, 2)
  }

  func testDecode_versionOne_keepsItsNamesAsWritten() throws {
    let old = manifest(version: 1, test: "C.testA")
    let read = try ArchiveManifest.decode(try old.encoded(), source: "old.zip")
    XCTAssertEqual(read, old)
    XCTAssertEqual(read.images.map(\.test), ["C.testA"])
  }

  func testDecode_newerVersion_isRefusedByItsNumber() throws {
    let newer = manifest(version: ArchiveManifest.currentFormatVersion + 1, test: "M.C/testA")
    XCTAssertThrowsError(try ArchiveManifest.decode(try newer.encoded(), source: "new.zip")) {
      XCTAssertTrue("\($0)".contains("new.zip"), "\($0)")
      XCTAssertTrue(
        "\($0)".contains("format version \(ArchiveManifest.currentFormatVersion + 1)"), "\($0)")
      XCTAssertTrue("\($0)".contains("update merge-refs"), "\($0)")
    }
  }
}
