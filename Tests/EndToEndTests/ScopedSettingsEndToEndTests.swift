import Foundation
import ReferenceArchive
import ReferenceContracts
import XCTest

/// The `.referenceImages(mode:)` trait and `withReferenceImages(mode:referenceFolder:)` in a real
/// `swift test` run: three Swift Testing tests of one suite run at the same time in verify mode;
/// the two with a scoped mode record their images, the third still fails for its missing
/// reference (and keeps its render for review, as verify does).
final class ScopedSettingsEndToEndTests: XCTestCase {
  func testScopedModes_recordOnlyTheirOwnTestsImages_whileTheOthersVerify() throws {
    let fixture = try FixturePackage.built()
    try fixture.reset()
    let run = try fixture.test(
      ["--disable-xctest", "--filter", "ScopedSettings"],
      environment: ["RENDER_FIXTURE_SCOPED": "1"])

    XCTAssertNotEqual(run.status, 0, "the test without a scoped mode fails\n\(run.all)")
    XCTAssertTrue(
      run.all.contains(
        "no reference at Tests/SwiftTestingTests/__References__/ScopedSettings/environment.png;"),
      run.all)
    XCTAssertTrue(
      run.all.contains(
        "swift run merge-refs --include "
          + "Tests/SwiftTestingTests/__References__/ScopedSettings/environment.png "),
      run.all)
    XCTAssertFalse(run.all.contains("all three tests were running at once"), run.all)
    XCTAssertTrue(run.all.contains("Test verifiedByEnvironment() failed"), run.all)
    XCTAssertTrue(run.all.contains("Test recordedByTrait() passed"), run.all)
    XCTAssertTrue(run.all.contains("Test recordedByScope() passed"), run.all)

    let archives = try fixture.archives()
    XCTAssertEqual(archives.count, 1, run.all)
    let manifest = try manifest(of: try XCTUnwrap(archives.first))
    // The two scoped tests recorded their images; the verifying test's failed comparison kept
    // its render for review, marked as compared with no reference.
    XCTAssertEqual(
      manifest.images.map(\.path),
      [
        "Tests/SwiftTestingTests/Scoped/scope.png",
        "Tests/SwiftTestingTests/__References__/ScopedSettings/environment.png",
        "Tests/SwiftTestingTests/__References__/ScopedSettings/trait.png",
      ])
    XCTAssertEqual(
      manifest.images.map { $0.failedComparison?.verdict },
      [nil, "no reference", nil], "only the verifying test's render is a failed comparison")
    XCTAssertEqual(manifest.mode, "verify", "the process's mode is still the environment's")
  }

  private func manifest(of archive: URL) throws -> ArchiveManifest {
    var manifest: ArchiveManifest?
    try ZipReader().forEachEntry(in: .file(archive), failure: { $0 }) { (entry) throws(any Error) in
      if entry.path == ArchiveManifest.entryName {
        manifest = try ArchiveManifest.decode(Data(entry.bytes), source: archive.path)
      }
    }
    return try XCTUnwrap(manifest, "no manifest in \(archive.path)")
  }
}
