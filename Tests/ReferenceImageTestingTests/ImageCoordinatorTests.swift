import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceImageTesting

final class ImageCoordinatorTests: XCTestCase {
  func testFinishRun_writesOneArchiveListingEveryImage() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    let coordinator = makeCoordinator(output: output)
    var stored: [String: RGBAImage] = [:]
    for index in 0..<5 {
      let location = try package.location("image-\(index)")
      let image = try sampleImage(seed: index)
      try coordinator.store(image, at: location, test: "ChartTests.test\(index)")
      stored[location.relativePath] = image
    }
    let archive = try XCTUnwrap(coordinator.finishRun())
    XCTAssertEqual(archives(in: output), [archive])
    XCTAssertEqual(coordinator.archiveURL, archive)
    XCTAssertEqual(contents(of: output), [archive.lastPathComponent], "staging folder left over")

    let contents = try ArchiveContents(archive)
    let manifest = try XCTUnwrap(contents.manifest)
    XCTAssertEqual(manifest.mode, "all")
    XCTAssertEqual(manifest.completion, .finished)
    XCTAssertNotNil(manifest.endedAt)
    XCTAssertEqual(Set(manifest.images.map(\.path)), Set(stored.keys))
    XCTAssertEqual(Set(contents.files.keys), Set(stored.keys))
    XCTAssertTrue(contents.entryCounts.values.allSatisfy { $0 == 1 }, "\(contents.entryCounts)")
    for record in manifest.images {
      let png = try XCTUnwrap(contents.files[record.path])
      let image = try XCTUnwrap(stored[record.path])
      XCTAssertEqual(record.pngSHA256.hex, SHA256.hex(png), record.path)
      XCTAssertEqual(record.pixelSHA256.hex, SHA256.hex(image.pixels), record.path)
      XCTAssertEqual(record.byteCount, png.count)
      XCTAssertEqual([record.width, record.height], [image.width, image.height])
      XCTAssertEqual(try PNGDecoder().decode(png), image, record.path)
      XCTAssertTrue(record.test.hasPrefix("ChartTests.test"), record.test)
    }
  }

  /// The record carries the assertion's comparison, as an archived image's does: the merge
  /// judges an unchanged variant file against its fallback with it.
  func testRecordUnchanged_listedInTheManifestWithItsComparisonAndNotArchived() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    let coordinator = makeCoordinator(output: output)
    let image = try sampleImage(seed: 1)
    let location = try package.location("same")
    let reference = UnchangedReference(
      pngSHA256: SHA256Digest(of: Array("abc".utf8)), pixelSHA256: SHA256Digest(of: image.pixels))
    let comparison = ComparisonRecord(.tolerance(3), bound: .maximumDifferingPixels(5))
    try coordinator.recordUnchanged(
      image, at: location, owner: ImageOwner(test: "T.same"), reference: reference,
      comparison: comparison)
    XCTAssertThrowsError(try coordinator.store(image, at: location, test: "T.again"))

    let archive = try XCTUnwrap(coordinator.finishRun(), "unchanged images need their manifest")
    let contents = try ArchiveContents(archive)
    let manifest = try XCTUnwrap(contents.manifest)
    XCTAssertEqual(contents.files, [:], "nothing archived")
    XCTAssertEqual(manifest.images, [])
    XCTAssertEqual(
      manifest.unchangedImages,
      [
        .init(
          path: location.relativePath, test: "T.same", width: image.width,
          height: image.height, pixelSHA256: reference.pixelSHA256, pngSHA256: reference.pngSHA256,
          comparison: comparison)
      ])
  }

  func testFinishRun_secondCall_writesNothing() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self)
    let coordinator = makeCoordinator(output: output)
    try coordinator.store(try sampleImage(seed: 1), at: try package.location("a"), test: "T.a")
    let first = try XCTUnwrap(coordinator.finishRun())
    let bytes = try Data(contentsOf: first)
    XCTAssertNil(coordinator.finishRun())
    XCTAssertEqual(archives(in: output), [first])
    XCTAssertEqual(try Data(contentsOf: first), bytes)
  }

  func testFinishRun_noImageStored_writesNoArchiveAndNoStagingFolder() throws {
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    let coordinator = makeCoordinator(output: output)
    coordinator.testStarted("T.testNothing", isXCTest: true)
    XCTAssertNil(coordinator.finishRun())
    XCTAssertNil(coordinator.archiveURL)
    XCTAssertEqual(contents(of: output), [])
  }

  func testStore_duplicatePath_throwsNamingBothTests() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self)
    let coordinator = makeCoordinator(output: output)
    let location = try package.location("same")
    try coordinator.store(try sampleImage(seed: 1), at: location, test: "First.testA")
    XCTAssertThrowsError(
      try coordinator.store(try sampleImage(seed: 2), at: location, test: "Second.testB")
    ) { error in
      XCTAssertEqual(
        error as? ReferenceImageError,
        .duplicateImage(
          path: location.relativePath, firstTest: "First.testA", secondTest: "Second.testB"))
      let text = "\(error)"
      XCTAssertTrue(text.contains("First.testA") && text.contains("Second.testB"), text)
    }
    // The first image wins; the second is not silently written over it.
    let archive = try XCTUnwrap(coordinator.finishRun())
    let contents = try ArchiveContents(archive)
    XCTAssertEqual(contents.manifest?.images.map(\.test), ["First.testA"])
    XCTAssertEqual(
      try PNGDecoder().decode(try XCTUnwrap(contents.files[location.relativePath])),
      try sampleImage(seed: 1))
  }

  func testStore_afterFinishRun_throwsSayingTheArchiveWasWritten() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self)
    let coordinator = makeCoordinator(output: output)
    try coordinator.store(try sampleImage(seed: 1), at: try package.location("a"), test: "T.a")
    let archive = try XCTUnwrap(coordinator.finishRun())
    let before = try Data(contentsOf: archive)
    let late = try package.location("late")
    XCTAssertThrowsError(try coordinator.store(try sampleImage(seed: 2), at: late, test: "T.b")) {
      guard case .writeFailed(let path, let reason)? = $0 as? ReferenceImageError else {
        return XCTFail("unexpected error \($0)")
      }
      XCTAssertEqual(path, late.relativePath)
      XCTAssertTrue(reason.contains("already written"), reason)
    }
    XCTAssertEqual(try Data(contentsOf: archive), before)
    XCTAssertEqual(contents(of: output), [archive.lastPathComponent])
  }

  func testStore_outputFolderUnderARegularFile_throwsWriteFailedNamingThePath() throws {
    let package = try TemporaryPackage(self)
    let file = try makeTemporaryFolder(self).appendingPathComponent("file.txt")
    try Data("not a folder".utf8).write(to: file)
    let output = file.appendingPathComponent("sub")
    let coordinator = makeCoordinator(output: output)
    XCTAssertThrowsError(
      try coordinator.store(try sampleImage(seed: 1), at: try package.location("a"), test: "T.a")
    ) {
      guard case .writeFailed(let path, _)? = $0 as? ReferenceImageError else {
        return XCTFail("unexpected error \($0)")
      }
      XCTAssertTrue(path.hasPrefix(output.path), "\(path) is not under \(output.path)")
      XCTAssertTrue("\($0)".contains(output.path), "\($0)")
    }
    XCTAssertNil(coordinator.finishRun())
  }

  func testStore_failedStore_doesNotReserveThePath() throws {
    let package = try TemporaryPackage(self)
    let file = try makeTemporaryFolder(self).appendingPathComponent("file.txt")
    try Data().write(to: file)
    let coordinator = makeCoordinator(output: file.appendingPathComponent("sub"))
    let location = try package.location("a")
    for _ in 0..<2 {
      XCTAssertThrowsError(try coordinator.store(try sampleImage(seed: 1), at: location, test: "T"))
      {
        guard case .writeFailed? = $0 as? ReferenceImageError else {
          return XCTFail("a failed store must not count as the first of a duplicate: \($0)")
        }
      }
    }
  }

  func testFinishRun_manifestListsTestsAndVerifiedReferences() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self)
    let coordinator = makeCoordinator(output: output, mode: "missing")
    coordinator.testStarted("Suite.testOne", isXCTest: true)
    coordinator.testStarted("Suite.testTwo", isXCTest: true)
    coordinator.testStarted("Suite.testOne", isXCTest: true)
    XCTAssertEqual(coordinator.currentXCTestName, "Suite.testOne")
    let verified = try package.location("verified")
    coordinator.noteVerified(verified)
    try coordinator.store(try sampleImage(seed: 3), at: try package.location("new"), test: "S")
    let manifest = try XCTUnwrap(ArchiveContents(try XCTUnwrap(coordinator.finishRun())).manifest)
    XCTAssertEqual(manifest.tests, ["Suite.testOne", "Suite.testTwo"])
    XCTAssertEqual(manifest.verifiedReferences, [verified.relativePath])
    XCTAssertEqual(manifest.mode, "missing")
  }

  /// Every record of an XCTest test names it by its `swift test list` name: the tests that
  /// ran, the images, the durations.
  func testObserver_namesTheTestByItsListingNameEverywhere() throws {
    let package = try TemporaryPackage(self)
    let coordinator = makeCoordinator(output: try makeTemporaryFolder(self))
    let observer = CoordinatorObserver(coordinator: coordinator)
    observer.testCaseWillStart(self)
    let name =
      "ReferenceImageTestingTests.ImageCoordinatorTests/"
      + "testObserver_namesTheTestByItsListingNameEverywhere"
    XCTAssertEqual(coordinator.currentXCTestName, name)
    let test = try XCTUnwrap(coordinator.currentXCTestName)
    try coordinator.store(try sampleImage(seed: 4), at: try package.location("named"), test: test)
    observer.testCaseDidFinish(self)
    let manifest = try XCTUnwrap(ArchiveContents(try XCTUnwrap(coordinator.finishRun())).manifest)
    XCTAssertEqual(manifest.formatVersion, 2)
    XCTAssertEqual(manifest.tests, [name])
    XCTAssertEqual(manifest.images.map(\.test), [name])
    XCTAssertEqual(manifest.testDurations?.map(\.test), [name])
  }

  func testFinishRun_imagesFromSeveralPackagesFolders_keepPackageRelativePaths() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self)
    let coordinator = makeCoordinator(output: output)
    let chart = try ReferenceLocation(
      name: "x", filePath: package.testFile("Tests/ChartTests/LineTests.swift"), environment: [:])
    let badge = try ReferenceLocation(
      name: "x", filePath: package.testFile("Tests/BadgeTests/BadgeTests.swift"),
      environment: [:])
    try coordinator.store(try sampleImage(seed: 1), at: chart, test: "A")
    try coordinator.store(try sampleImage(seed: 2), at: badge, test: "B")
    let contents = try ArchiveContents(try XCTUnwrap(coordinator.finishRun()))
    XCTAssertEqual(
      contents.files.keys.sorted(),
      [
        "Tests/BadgeTests/__References__/BadgeTests/x.png",
        "Tests/ChartTests/__References__/LineTests/x.png",
      ])
  }
}
