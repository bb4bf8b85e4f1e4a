import Foundation
import ReferenceArchive
import ReferenceContracts
import XCTest

/// Generation on the fixture package when references already hold the renders: unchanged images
/// are recorded in the manifest, not archived, and `merge-refs` reports the same counts as when
/// every image was archived.
final class UnchangedGenerationEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!

  /// The images `RENDER_FIXTURE_CHANGE=bars` changes.
  private let barImages = [
    "Tests/ChartTests/__References__/BarChartTests/bars.png",
    "Tests/ChartTests/__References__/BarChartTests/flat-bars.png",
    "Tests/SwiftTestingTests/__References__/SwiftTestingBadges/bars.png",
  ]

  override func setUpWithError() throws {
    fixture = try FixturePackage.built()
    try fixture.reset()
  }

  /// Runs `IMAGE_GENERATION_MODE=1 swift test` into an empty output folder.
  private func generate(_ environment: [String: String] = [:]) throws -> [URL] {
    try? FileManager.default.removeItem(at: fixture.archiveFolder)
    let run = try fixture.test(
      [], environment: environment.merging(["IMAGE_GENERATION_MODE": "1"]) { $1 })
    XCTAssertEqual(run.status, 0, run.all)
    return try fixture.archives()
  }

  private func merge(_ archives: [URL]) throws -> ProcessOutput {
    let run = try fixture.run(
      [try builtProduct("merge-refs").path] + archives.map(\.path) + ["."], environment: [:])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    return run
  }

  /// The PNG entries of the archives, and their manifests' unchanged records.
  private func contents(_ archives: [URL]) throws -> (pngs: [String], unchanged: [String]) {
    var pngs: [String] = []
    var unchanged: [String] = []
    for archive in archives {
      try ZipReader().forEachEntry(in: .file(archive), failure: { $0 }) {
        (entry) throws(any Error) in
        guard entry.path == ArchiveManifest.entryName else { return pngs.append(entry.path) }
        let manifest = try ArchiveManifest.decode(Data(entry.bytes), source: archive.path)
        unchanged += (manifest.unchangedImages ?? []).map(\.path)
      }
    }
    return (pngs.sorted(), unchanged.sorted())
  }

  func testGenerate_nothingChanged_archivesNoPNGAndMergesAsUnchanged() throws {
    let first = try generate()
    XCTAssertEqual(try contents(first).pngs.count, 12)
    XCTAssertTrue(
      try merge(first).output.contains(
        "12 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 0 refused"))

    let again = try generate()
    XCTAssertFalse(again.isEmpty, "a run of unchanged images still writes its manifest")
    let (pngs, unchanged) = try contents(again)
    XCTAssertEqual(pngs, [], "nothing changed, nothing archived")
    XCTAssertEqual(unchanged.count, 12)
    let merged = try merge(again)
    XCTAssertTrue(
      merged.output.contains("0 added, 0 updated, 12 unchanged, 0 conflicts, 0 orphans"),
      merged.all)

    let change = ["RENDER_FIXTURE_CHANGE": "bars"]
    let changed = try generate(change)
    XCTAssertEqual(try contents(changed).pngs, barImages.sorted(), "only what changed")
    XCTAssertEqual(try contents(changed).unchanged.count, 9)
    let landed = try merge(changed)
    XCTAssertTrue(
      landed.output.contains("0 added, 3 updated, 9 unchanged, 0 conflicts, 0 orphans"),
      landed.all)
    let verify = try fixture.test([], environment: change)
    XCTAssertEqual(verify.status, 0, "the changed renders landed\n\(verify.all)")

    let reencoded = try generate(change.merging(["IMAGE_GENERATION_REENCODE": "1"]) { $1 })
    XCTAssertEqual(try contents(reencoded).pngs.count, 12, "the switch archives everything")
    XCTAssertEqual(try contents(reencoded).unchanged, [])
    XCTAssertTrue(
      try merge(reencoded).output.contains(
        "0 added, 0 updated, 12 unchanged, 0 conflicts, 0 orphans"))
  }
}
