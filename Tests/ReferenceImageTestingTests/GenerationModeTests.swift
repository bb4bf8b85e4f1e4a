import XCTest

@testable import ReferenceImageTesting

final class GenerationModeTests: XCTestCase {
  func testParse_unset_isVerify() {
    XCTAssertEqual(GenerationMode(environmentValue: nil), .verify)
  }

  func testParse_documentedValues_giveTheirModes() {
    let expected: [(String, GenerationMode)] = [
      ("", .verify), ("0", .verify), ("never", .verify), ("1", .all), ("all", .all),
      ("missing", .missing), ("failed", .failed),
    ]
    for (value, mode) in expected {
      XCTAssertEqual(GenerationMode(environmentValue: value), mode, "value '\(value)'")
    }
  }

  func testParse_letterCaseAndSurroundingWhiteSpace_areIgnored() {
    let expected: [(String, GenerationMode)] = [
      ("ALL", .all), (" All ", .all), ("\tMissing", .missing), ("FAILED\n", .failed),
      (" never\r\n", .verify), (" 1 ", .all), ("   ", .verify),
    ]
    for (value, mode) in expected {
      XCTAssertEqual(
        GenerationMode(environmentValue: value), mode, "value \(value.debugDescription)")
    }
  }

  func testParse_invalidValue_keepsTheRawText() {
    for value in ["yes", "2", " Record ", "al l", "true", "missing,failed"] {
      XCTAssertEqual(GenerationMode(environmentValue: value), .invalid(value))
    }
  }

  func testInvalidMessage_namesTheValueAndTheValidOnes() {
    let message = GenerationMode.invalidMessage("yes")
    for fragment in ["'yes'", "IMAGE_GENERATION_MODE", "never", "all", "missing", "failed"] {
      XCTAssertTrue(message.contains(fragment), "\(fragment) missing from: \(message)")
    }
  }

  func testStoresImages_onlyForRecordingModes() {
    XCTAssertTrue(GenerationMode.all.storesImages)
    XCTAssertTrue(GenerationMode.missing.storesImages)
    XCTAssertTrue(GenerationMode.failed.storesImages)
    XCTAssertFalse(GenerationMode.verify.storesImages)
    XCTAssertFalse(GenerationMode.invalid("x").storesImages)
  }

  func testDescription_isTheManifestName() {
    XCTAssertEqual(
      [GenerationMode.verify, .all, .missing, .failed].map(\.description),
      ["verify", "all", "missing", "failed"])
  }

  func testEnvironment_readsModeAndFolders() {
    let environment = ImageTestEnvironment(environment: [
      "IMAGE_GENERATION_MODE": "missing", "IMAGE_GENERATION_OUTPUT": "/tmp/out",
      "IMAGE_DIFF_DIR": "/tmp/diffs",
    ])
    XCTAssertEqual(environment.mode, .missing)
    XCTAssertEqual(environment.outputFolder?.path, "/tmp/out")
    XCTAssertEqual(environment.diffFolder?.path, "/tmp/diffs")
  }

  func testEnvironment_unsetFolders_defaultInsideThePackageBuildFolder() {
    let environment = ImageTestEnvironment(environment: ["IMAGE_GENERATION_OUTPUT": ""])
    let root = URL(fileURLWithPath: "/work/Package")
    XCTAssertEqual(environment.mode, .verify)
    XCTAssertEqual(
      environment.archiveFolder(packageRoot: root).path, "/work/Package/.build/reference-images")
    XCTAssertEqual(
      environment.artifactFolder(packageRoot: root).path,
      "/work/Package/.build/reference-image-diffs")
  }

  func testEnvironment_relativeFolder_startsAtTheWorkingDirectory() {
    let environment = ImageTestEnvironment(environment: ["IMAGE_GENERATION_OUTPUT": "out/zips"])
    let expected = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      .appendingPathComponent("out/zips").standardizedFileURL.path
    XCTAssertEqual(environment.outputFolder?.path, expected)
  }
}
