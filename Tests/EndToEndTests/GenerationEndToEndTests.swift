import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import XCTest

/// Runs real `swift test` on the fixture package in every generation mode.
final class GenerationEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!

  /// The eight images of the fixture's XCTest tests.
  private let xctestImages = [
    "Tests/BadgeTests/__References__/BadgeTests/failing.png",
    "Tests/BadgeTests/__References__/BadgeTests/passing.png",
    "Tests/BadgeTests/__References__/BadgeTests/variants/small-black.png",
    "Tests/BadgeTests/__References__/BadgeTests/wide.png",
    "Tests/ChartTests/__References__/BarChartTests/bars.png",
    "Tests/ChartTests/__References__/BarChartTests/flat-bars.png",
    "Tests/ChartTests/__References__/CheckerTests/large-cells.png",
    "Tests/ChartTests/__References__/CheckerTests/small-cells.png",
  ]

  override func setUpWithError() throws {
    fixture = try FixturePackage.built()
    try fixture.reset()
  }

  func testGenerateAll_serial_writesOneArchiveThatUnzipAndBsdtarRead() throws {
    let run = try fixture.test(
      ["--disable-swift-testing"], environment: ["IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(run.status, 0, run.all)
    let archives = try fixture.archives()
    XCTAssertEqual(archives.count, 1, run.all)
    let archive = try XCTUnwrap(archives.first)
    XCTAssertTrue(run.all.contains("wrote 8 images (mode all) to \(archive.path)"), run.all)
    // The command the run prints lands its images when pasted as printed.
    let marker =
      "ReferenceImages: to land them, run this in the package root once the tests "
      + "have finished: "
    let land = try XCTUnwrap(
      run.all.split(separator: "\n").first { $0.hasPrefix(marker) }?.dropFirst(marker.count),
      run.all)
    XCTAssertEqual(land, "swift run merge-refs .build/reference-images .")
    let landed = try fixture.shell(String(land), environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(landed.exitStatus, .success, landed.all)
    XCTAssertTrue(landed.output.contains(" 0 conflicts, 0 orphans, 0 refused"), landed.all)

    let unzip = try runProcess("/usr/bin/unzip", ["-Z1", archive.path])
    XCTAssertEqual(unzip.status, 0, unzip.all)
    XCTAssertEqual(
      unzip.output.split(separator: "\n").map(String.init).sorted(),
      ([ArchiveManifest.entryName] + xctestImages).sorted())
    let bsdtar = try runProcess("/usr/bin/bsdtar", ["-tf", archive.path])
    XCTAssertEqual(bsdtar.status, 0, bsdtar.all)
    XCTAssertEqual(bsdtar.output.split(separator: "\n").count, 9)

    let manifest = try readManifest(archive)
    XCTAssertEqual(manifest.completion, .finished)
    XCTAssertEqual(manifest.mode, "all")
    XCTAssertEqual(manifest.images.map(\.path), xctestImages)
    XCTAssertEqual(manifest.tests.count, 8)
    XCTAssertEqual(Set(manifest.verifiedReferences), Set(xctestImages))
    let bars = try XCTUnwrap(manifest.images.first { $0.path.hasSuffix("/bars.png") })
    XCTAssertEqual(bars.test, "ChartTests.BarChartTests/testBars")
    XCTAssertEqual([bars.width, bars.height], [120, 80])
    XCTAssertFalse(
      FileManager.default.fileExists(
        atPath: fixture.archiveFolder.appendingPathComponent(".staging").path),
      "the staging folder is removed once archived")
  }

  func testGenerateAll_parallel_oneArchivePerWorkerWithTheSerialImages() throws {
    let serial = try fixture.test(
      ["--disable-swift-testing"], environment: ["IMAGE_GENERATION_MODE": "all"])
    XCTAssertEqual(serial.status, 0, serial.all)
    let serialEntries = try entries(of: try fixture.archives())
    try fixture.reset()

    let parallel = try fixture.test(
      ["--disable-swift-testing", "--parallel"], environment: ["IMAGE_GENERATION_MODE": "all"])
    XCTAssertEqual(parallel.status, 0, parallel.all)
    let archives = try fixture.archives()
    // swift test --parallel runs each XCTest test in its own process, and every test stores one
    // image, so there is one archive per test.
    XCTAssertEqual(archives.count, 8, parallel.all)
    let workers = try Set(archives.map { try readManifest($0).worker.pid })
    XCTAssertEqual(workers.count, 8)
    let parallelEntries = try entries(of: archives)
    XCTAssertEqual(parallelEntries, serialEntries, "same paths, byte for byte")
  }

  func testSwiftTesting_writesItsArchiveAtProcessExit() throws {
    let run = try fixture.test(["--disable-xctest"], environment: ["IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(run.status, 0, run.all)
    let archives = try fixture.archives()
    XCTAssertEqual(archives.count, 1, run.all)
    let manifest = try readManifest(try XCTUnwrap(archives.first))
    XCTAssertEqual(
      manifest.images.map(\.path),
      [
        "Tests/SwiftTestingTests/__References__/SwiftTestingBadges/badge-120.png",
        "Tests/SwiftTestingTests/__References__/SwiftTestingBadges/badge-40.png",
        "Tests/SwiftTestingTests/__References__/SwiftTestingBadges/badge-80.png",
        "Tests/SwiftTestingTests/__References__/SwiftTestingBadges/bars.png",
      ])
    XCTAssertTrue(manifest.images.allSatisfy { $0.test.contains("SwiftTestingBadges") })
  }

  func testVerify_missingReferences_failWithPathAndCommand() throws {
    let run = try fixture.test(
      ["--disable-swift-testing", "--filter", "BarChartTests"], environment: [:])
    XCTAssertNotEqual(run.status, 0)
    XCTAssertTrue(
      run.all.contains("no reference at Tests/ChartTests/__References__/BarChartTests/bars.png"),
      run.all)
    XCTAssertTrue(
      run.all.contains(
        "swift run merge-refs --include Tests/ChartTests/__References__/BarChartTests/bars.png "
          + ".build/reference-images/ReferenceImages-"),
      run.all)
    // The renders of the failed comparisons are kept for review, each with "no reference".
    let archives = try fixture.archives()
    XCTAssertEqual(archives.count, 1, run.all)
    let manifest = try readManifest(try XCTUnwrap(archives.first))
    XCTAssertEqual(manifest.mode, "verify")
    XCTAssertEqual(
      manifest.images.map(\.path),
      [
        "Tests/ChartTests/__References__/BarChartTests/bars.png",
        "Tests/ChartTests/__References__/BarChartTests/flat-bars.png",
      ])
    for image in manifest.images {
      let failure = try XCTUnwrap(image.failedComparison, image.path)
      XCTAssertNil(failure.referencePixelSHA256)
      XCTAssertEqual(failure.verdict, "no reference")
      XCTAssertEqual(failure.file, "Tests/ChartTests/BarChartTests.swift")
    }
    XCTAssertTrue(run.all.contains("the render is kept in this run's archive"), run.all)
  }

  func testVerify_afterUnpacking_passes_thenARendererChangeFailsWithNumbersAndArtifacts() throws {
    try generateAndUnpack(["--disable-swift-testing"])
    let verify = try fixture.test(["--disable-swift-testing"], environment: [:])
    XCTAssertEqual(verify.status, 0, verify.all)
    XCTAssertEqual(try fixture.archives(), [], "a passing verify run writes nothing")

    let changed = try fixture.test(
      ["--disable-swift-testing"], environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertNotEqual(changed.status, 0)
    // Bar 2 (x 30…41) grew by 3 pixels at its top: 36 pixels, allowed 9 of 9600 at 0.999.
    XCTAssertTrue(
      changed.all.contains(
        "36 of 9,600 pixels differ beyond the perceptual threshold 0.1 (allowed: 9, "
          + "requiredAccuracy 0.999), largest channel difference"),
      changed.all)
    XCTAssertTrue(changed.all.contains("within x 30…41, y 32…34"), changed.all)
    let base = fixture.diffFolder.appendingPathComponent(
      "Tests/ChartTests/__References__/BarChartTests/bars")
    for suffix in ["actual", "reference", "difference"] {
      let path = base.path + ".\(suffix).png"
      XCTAssertTrue(FileManager.default.fileExists(atPath: path), path)
      XCTAssertTrue(changed.all.contains(path), "the message names \(path)")
    }
    XCTAssertEqual(
      failures(in: changed.all), ["BarChartTests.testBars", "BarChartTests.testFlatBars"],
      "only the tests whose images changed fail")
    // The run kept exactly the two changed renders, bound to the references they were
    // compared with, with the numbers and the assertion's place.
    let manifest = try readManifest(try XCTUnwrap(try fixture.archives().first))
    XCTAssertEqual(
      manifest.images.map(\.path),
      [
        "Tests/ChartTests/__References__/BarChartTests/bars.png",
        "Tests/ChartTests/__References__/BarChartTests/flat-bars.png",
      ])
    let bars = try XCTUnwrap(manifest.images.first?.failedComparison)
    let reference = try PNGDecoder().decode(
      try FileSystem.read(
        fixture.root.appendingPathComponent(
          "Tests/ChartTests/__References__/BarChartTests/bars.png")))
    XCTAssertEqual(bars.referencePixelSHA256?.hex, SHA256.hex(reference.pixels))
    XCTAssertEqual(bars.differingPixels, 36)
    XCTAssertEqual(bars.totalPixels, 9600)
    XCTAssertEqual(bars.file, "Tests/ChartTests/BarChartTests.swift")
    XCTAssertTrue(changed.all.contains("BarChartTests.swift:\(bars.line)"), changed.all)
  }

  func testMissingMode_recordsOnlyImagesWithoutReference_andPasses() throws {
    try generateAndUnpack(["--disable-swift-testing", "--filter", "BadgeTests"])
    let run = try fixture.test(
      ["--disable-swift-testing"], environment: ["IMAGE_GENERATION_MODE": "missing"])
    XCTAssertEqual(run.status, 0, run.all)
    let manifest = try readManifest(try XCTUnwrap(try fixture.archives().first))
    XCTAssertEqual(manifest.images.map(\.path), xctestImages.filter { $0.contains("ChartTests") })
    XCTAssertEqual(Set(manifest.verifiedReferences), Set(xctestImages))
  }

  func testFailedMode_recordsMissingAndMismatched_andThoseTestsFail() throws {
    try generateAndUnpack(["--disable-swift-testing", "--filter", "BadgeTests|BarChartTests"])
    let run = try fixture.test(
      ["--disable-swift-testing"],
      environment: ["IMAGE_GENERATION_MODE": "failed", "RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertNotEqual(run.status, 0)
    let manifest = try readManifest(try XCTUnwrap(try fixture.archives().first))
    XCTAssertEqual(
      manifest.images.map(\.path),
      [
        "Tests/ChartTests/__References__/BarChartTests/bars.png",
        "Tests/ChartTests/__References__/BarChartTests/flat-bars.png",
        "Tests/ChartTests/__References__/CheckerTests/large-cells.png",
        "Tests/ChartTests/__References__/CheckerTests/small-cells.png",
      ])
    XCTAssertEqual(
      failures(in: run.all),
      [
        "BarChartTests.testBars", "BarChartTests.testFlatBars", "CheckerTests.testLargeCells",
        "CheckerTests.testSmallCells",
      ])
  }

  func testInvalidMode_failsEveryAssertionNamingTheValue() throws {
    let run = try fixture.test(
      ["--disable-swift-testing", "--filter", "CheckerTests"],
      environment: ["IMAGE_GENERATION_MODE": "yes please"])
    XCTAssertNotEqual(run.status, 0)
    let message = "IMAGE_GENERATION_MODE has the invalid value 'yes please'"
    XCTAssertEqual(failures(in: run.all).count, 2, run.all)
    // Once at the start of the run, then once per assertion.
    XCTAssertEqual(run.all.components(separatedBy: message).count - 1, 3, run.all)
    XCTAssertEqual(try fixture.archives(), [])
  }

  // MARK: Helpers

  /// Generates with IMAGE_GENERATION_MODE=1 and unpacks every archive into the package the way
  /// a user of plain unzip would.
  private func generateAndUnpack(_ arguments: [String]) throws {
    let run = try fixture.test(arguments, environment: ["IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(run.status, 0, run.all)
    try fixture.unpackArchives()
  }

  private func readManifest(_ archive: URL) throws -> ArchiveManifest {
    var manifest: ArchiveManifest?
    try ZipReader().forEachEntry(in: .file(archive), failure: { $0 }) { (entry) throws(any Error) in
      if entry.path == ArchiveManifest.entryName {
        manifest = try ArchiveManifest.decode(Data(entry.bytes), source: archive.path)
      }
    }
    return try XCTUnwrap(manifest, "no manifest in \(archive.path)")
  }

  private func entries(of archives: [URL]) throws -> [String: [UInt8]] {
    var entries: [String: [UInt8]] = [:]
    for archive in archives {
      try ZipReader().forEachEntry(in: .file(archive), failure: { $0 }) {
        (entry) throws(any Error) in
        guard entry.path != ArchiveManifest.entryName else { return }
        XCTAssertNil(entries[entry.path], "\(entry.path) appears in two archives")
        entries[entry.path] = entry.bytes
      }
    }
    return entries
  }

  /// The names of failed XCTest cases in a test log, sorted.
  private func failures(in log: String) -> [String] {
    let pattern = /Test Case '(.+)' failed/
    return Set(log.matches(of: pattern).map { String($0.1) }).sorted()
  }
}
