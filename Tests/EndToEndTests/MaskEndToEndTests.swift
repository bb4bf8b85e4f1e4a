import Foundation
import ReferenceContracts
import XCTest

/// Ignored regions and shift tolerance on a real package (`MaskFixture`), with real `swift test`
/// runs, merges and review reports: a render that differs only inside an ignored region passes
/// and needs no variant file, a failure and its review card count the same compared pixels, and
/// a run whose comparisons passed only within tolerance says so in its closing lines.
final class MaskEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!
  private let folder = "Tests/MaskTests/__References__"
  /// The dashboard's pixels less the clock's 30×10.
  private let compared = 120 * 60 - 30 * 10

  override func setUpWithError() throws {
    fixture = try FixturePackage.built("MaskFixture")
    try clean()
  }

  override func tearDownWithError() throws {
    try? clean()
  }

  private func clean() throws {
    for item in [folder, ".build/reference-images", ".build/reference-image-diffs", "review"]
      + [ReferenceVariants.fileName]
    {
      try? FileManager.default.removeItem(at: fixture.root.appendingPathComponent(item))
    }
  }

  private func path(_ test: String, _ name: String, _ variant: String? = nil) -> String {
    VariantPath.path(of: "\(folder)/\(test)/\(name).png", variant: variant)
  }

  private func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent(path).path)
  }

  private func mergeRefs(_ arguments: [String]) throws -> ProcessOutput {
    try fixture.run([try mergeRefsBinary().path] + arguments, environment: [:])
  }

  /// Records every reference of the fixture and empties the output folder.
  private func recordReferences(_ environment: [String: String] = [:]) throws {
    let run = try fixture.test(
      [], environment: environment.merging(["IMAGE_GENERATION_MODE": "1"]) { $1 })
    XCTAssertEqual(run.status, 0, run.all)
    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    try FileManager.default.removeItem(at: fixture.archiveFolder)
  }

  /// `swift test` runs a bundle's XCTest and Swift Testing tests in two processes: the XCTest
  /// one's archive, merged alone, proves nothing about the Swift Testing tests' references, and
  /// `--prune` deletes none of them.
  func testXCTestArchiveAlone_besideSwiftTestingTests_provesNoOrphans() throws {
    let run = try fixture.test([], environment: ["IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(run.status, 0, run.all)
    let archives = try fixture.archives()
    let xcTestArchive = try XCTUnwrap(
      archives.first { try manifest(ofArchive: $0).coverage?.scope == .wholeBundle }, "\(archives)")
    XCTAssertEqual(try manifest(ofArchive: xcTestArchive).coverage?.swiftTestingTestsNotRun, true)
    let landed = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(landed.exitStatus, .success, landed.all)
    let swiftTestingReference = path("SwiftTestingDashboard", "dashboard-swift-testing")
    XCTAssertTrue(exists(swiftTestingReference), landed.all)

    let alone = try mergeRefs(["--prune", xcTestArchive.path, "."])

    XCTAssertEqual(alone.exitStatus, .success, alone.all)
    XCTAssertTrue(
      alone.all.contains("did not run the Swift Testing tests of the same bundle"), alone.all)
    XCTAssertFalse(alone.all.contains("orphans (no test produced"), alone.all)
    XCTAssertTrue(exists(swiftTestingReference), alone.all)
  }

  func testClockChange_passesEveryTestThatIgnoresIt_andFailsTheOneThatDoesNot() throws {
    try recordReferences()
    let clock = ["MASK_FIXTURE_CLOCK": "5"]
    let masked = try fixture.test(
      ["--filter", "testDashboard$|testShiftedLabel|testTolerantColours|SwiftTestingDashboard"],
      environment: clock)
    XCTAssertEqual(masked.status, 0, masked.all)
    XCTAssertFalse(
      masked.all.contains("within tolerance"), "an ignored region is not tolerance: \(masked.all)")

    let unmasked = try fixture.test(["--filter", "testDashboardWithClock"], environment: clock)
    XCTAssertNotEqual(unmasked.status, 0, unmasked.all)
    XCTAssertTrue(
      unmasked.all.contains("dashboard-with-clock.png: 72 of 7,200 pixels differ in any channel"),
      "the clock's 4 new cells of 3×6 pixels count without the region: \(unmasked.all)")
  }

  /// A failure outside the clock counts only compared pixels, and the review card of the kept
  /// render counts exactly the same, in XCTest and in Swift Testing.
  func testFailure_countsComparedPixels_andTheReviewCardCountsTheSame() throws {
    try recordReferences()
    let run = try fixture.test(
      ["--filter", "testDashboard$|SwiftTestingDashboard"],
      environment: ["MASK_FIXTURE_CLOCK": "5", "MASK_FIXTURE_CHANGE": "bars"])
    XCTAssertNotEqual(run.status, 0, run.all)
    // The second bar rises by 4 rows of 12 pixels; the clock's new cells are ignored.
    let exact = "dashboard.png: 48 of 6,900 compared pixels differ in any channel"
    XCTAssertTrue(run.all.contains(exact), run.all)
    XCTAssertTrue(run.all.contains("300 pixels in 1 ignored region were not compared"), run.all)
    // Its kinds of change: the bar grew 4 rows taller, which no move explains, so "changed";
    // the ignored clock makes no region.
    let regionLines = run.all.split(separator: "\n").filter { $0.contains("region x ") }
    XCTAssertFalse(regionLines.isEmpty, run.all)
    XCTAssertTrue(
      regionLines.allSatisfy { $0.hasSuffix(": changed") },
      regionLines.joined(separator: "\n"))
    let perceptual = try XCTUnwrap(
      run.all.firstMatch(
        of: /dashboard-swift-testing\.png: ([0-9,]+) of 6,900 compared pixels differ beyond/),
      run.all)

    let report = fixture.root.appendingPathComponent("review")
    let merge = try mergeRefs(
      ["--dry-run", "--report", report.path, ".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    let cards = try ReviewDataScript.cards(inReport: report)
    let expected = [
      path("DashboardTests", "dashboard"): 48,
      path("SwiftTestingDashboard", "dashboard-swift-testing"):
        Int(perceptual.1.replacingOccurrences(of: ",", with: "")),
    ]
    for (path, count) in expected {
      let card = try XCTUnwrap(cards.first { ($0["path"] as? String) == path }, "\(cards)")
      XCTAssertEqual(card["changedPixels"] as? Int, count, "\(path): \(card)\n\(run.all)")
      XCTAssertEqual(card["totalPixels"] as? Int, compared, "\(path): \(card)")
    }
  }

  /// A variant platform whose render differs from the base only inside the clock needs no
  /// file of its own; the test that does not ignore the clock gets one.
  func testVariantDifferingOnlyInsideTheRegion_getsNoVariantFile() throws {
    try Data(
      """
      {"schemaVersion": 1, "base": "\(ReferencePlatform.current)",
       "variants": {"linux-arm64": ["linux"], "linux": []}}
      """.utf8
    ).write(to: fixture.root.appendingPathComponent(ReferenceVariants.fileName))
    try recordReferences()
    let variant = try fixture.test(
      ["--disable-swift-testing"],
      environment: [
        "IMAGE_GENERATION_MODE": "1", "IMAGE_REFERENCE_VARIANT": "linux-arm64",
        "MASK_FIXTURE_CLOCK": "5",
      ])
    XCTAssertEqual(variant.status, 0, variant.all)
    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)

    XCTAssertTrue(exists(path("DashboardTests", "dashboard-with-clock", "linux-arm64")), merge.all)
    for name in ["dashboard", "shifted-label", "tolerant-colours"] {
      XCTAssertTrue(exists(path("DashboardTests", name)))
      XCTAssertFalse(
        exists(path("DashboardTests", name, "linux-arm64")), "\(name): \(merge.all)")
    }
    XCTAssertTrue(merge.output.contains("3 variant renders equal to the fallback"), merge.all)

    // The variant verifies against its chain: its own file where it has one, the base's
    // otherwise, with the clock ignored.
    let verify = try fixture.test(
      ["--disable-swift-testing"],
      environment: ["IMAGE_REFERENCE_VARIANT": "linux-arm64", "MASK_FIXTURE_CLOCK": "5"])
    XCTAssertEqual(verify.status, 0, verify.all)
  }

  /// Passing comparisons that tolerated differences are counted in the run's closing line,
  /// with the largest share and its reference; a shift is tolerance too.
  func testPassesWithinTolerance_areNamedInTheClosingLine() throws {
    try recordReferences()
    let summary = fixture.root.appendingPathComponent(".build/job-summary.md")
    try Data("# verify\n".utf8).write(to: summary)
    let tint = try fixture.test(
      ["--disable-swift-testing", "--filter", "testTolerantColours|testDashboard$"],
      environment: ["MASK_FIXTURE_CHANGE": "tint", "GITHUB_STEP_SUMMARY": summary.path])
    XCTAssertNotEqual(tint.status, 0, "the exact dashboard fails: \(tint.all)")
    // The three bars, 12 × (20 + 34 + 26) = 960 of 6,900 compared pixels, one level redder:
    // tolerance(2) lets them pass.
    XCTAssertTrue(
      tint.all.contains(
        "ReferenceImages: 1 reference passes only within tolerance; largest 13.9% of pixels "
          + "tolerated, \(path("DashboardTests", "tolerant-colours"))"), tint.all)
    XCTAssertEqual(
      try String(contentsOf: summary, encoding: .utf8),
      "# verify\n\n**ReferenceImages**: 1 reference passes only within tolerance; largest 13.9% "
        + "of pixels tolerated, \(path("DashboardTests", "tolerant-colours"))\n",
      "the job summary says it too")

    let shift = try fixture.test(
      ["--disable-swift-testing", "--filter", "testShiftedLabel|testTolerantColours"],
      environment: ["MASK_FIXTURE_CHANGE": "shift"])
    XCTAssertNotEqual(shift.status, 0, "the moved label fails tolerance(2): \(shift.all)")
    // Each of the label's two strokes, 2 rows high, changes at both ends: 8 of 6,900 pixels.
    XCTAssertTrue(
      shift.all.contains(
        "ReferenceImages: 1 reference passes only within tolerance; largest 0.1% of pixels "
          + "tolerated, \(path("DashboardTests", "shifted-label"))"), shift.all)

    // Swift Testing's process says so too, at its exit.
    let swiftTesting = try fixture.test(
      ["--disable-xctest", "--filter", "SwiftTestingDashboard"],
      environment: ["MASK_FIXTURE_CHANGE": "tint"])
    XCTAssertEqual(swiftTesting.status, 0, swiftTesting.all)
    XCTAssertTrue(
      swiftTesting.all.contains(
        "ReferenceImages: 1 reference passes only within tolerance; largest 13.9% of pixels "
          + "tolerated, \(path("SwiftTestingDashboard", "dashboard-swift-testing"))"),
      swiftTesting.all)

    let identical = try fixture.test(["--disable-swift-testing"], environment: [:])
    XCTAssertEqual(identical.status, 0, identical.all)
    XCTAssertFalse(identical.all.contains("within tolerance"), identical.all)
  }
}
