import Foundation
import XCTest

@testable import ReferenceImageTesting

final class ReferenceLocationTests: XCTestCase {
  func testInit_defaultFolder_isReferencesBesideTheTestFile() throws {
    let package = try TemporaryPackage(self)
    let location = try ReferenceLocation(
      name: "bar-chart", filePath: package.testFile(), environment: [:])
    XCTAssertEqual(location.packageRoot.path, package.root.path)
    XCTAssertEqual(
      location.relativePath, "Tests/ChartTests/__References__/BarChartTests/bar-chart.png")
    XCTAssertEqual(
      location.url.path,
      package.root.path + "/Tests/ChartTests/__References__/BarChartTests/bar-chart.png")
  }

  func testInit_nestedName_makesSubFolders() throws {
    let package = try TemporaryPackage(self)
    let location = try ReferenceLocation(
      name: "dark/large/bar", filePath: package.testFile(), environment: [:])
    XCTAssertEqual(
      location.relativePath, "Tests/ChartTests/__References__/BarChartTests/dark/large/bar.png")
  }

  func testInit_nestedTestFile_isInItsTargetsRoot() throws {
    let package = try TemporaryPackage(self)
    let location = try ReferenceLocation(
      name: "bar", filePath: package.testFile("Tests/ChartTests/Bars/Stacked/StackTests.swift"),
      environment: [:])
    XCTAssertEqual(
      location.relativePath, "Tests/ChartTests/__References__/Bars/Stacked/StackTests/bar.png")
  }

  func testInit_nestedTestFileWithAFolderBesideIt_keepsThatFolder() throws {
    let package = try TemporaryPackage(self)
    let file = package.testFile("Tests/ChartTests/Bars/StackTests.swift")
    let beside = package.root.appendingPathComponent(
      "Tests/ChartTests/Bars/__References__/StackTests")
    try FileManager.default.createDirectory(at: beside, withIntermediateDirectories: true)
    let location = try ReferenceLocation(name: "bar", filePath: file, environment: [:])
    XCTAssertEqual(location.relativePath, "Tests/ChartTests/Bars/__References__/StackTests/bar.png")
  }

  func testInit_nestedTestFileWithBothFolders_usesTheTargetsRoot() throws {
    let package = try TemporaryPackage(self)
    let file = package.testFile("Tests/ChartTests/Pies/PieTests.swift")
    for folder in [
      "Tests/ChartTests/Pies/__References__/PieTests",
      "Tests/ChartTests/__References__/Pies/PieTests",
    ] {
      try FileManager.default.createDirectory(
        at: package.root.appendingPathComponent(folder), withIntermediateDirectories: true)
    }
    let location = try ReferenceLocation(name: "pie", filePath: file, environment: [:])
    XCTAssertEqual(location.relativePath, "Tests/ChartTests/__References__/Pies/PieTests/pie.png")
  }

  func testInit_testFileOutsideTests_keepsItsFolderBesideIt() throws {
    let package = try TemporaryPackage(self)
    let location = try ReferenceLocation(
      name: "bar", filePath: package.testFile("Checks/Render/BarChecks.swift"), environment: [:])
    XCTAssertEqual(location.relativePath, "Checks/Render/__References__/BarChecks/bar.png")
  }

  func testInit_nearestPackageSwift_isTheRoot() throws {
    let outer = try TemporaryPackage(self)
    let inner = outer.root.appendingPathComponent("Nested/Inner")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
    try Data().write(to: inner.appendingPathComponent("Package.swift"))
    let location = try ReferenceLocation(
      name: "a", filePath: inner.appendingPathComponent("Tests/T/ATests.swift").path,
      environment: [:])
    XCTAssertEqual(location.packageRoot.path, inner.path)
    XCTAssertEqual(location.relativePath, "Tests/T/__References__/ATests/a.png")
  }

  func testInit_invalidNames_throwInvalidName() throws {
    let package = try TemporaryPackage(self)
    for name in [
      "", "..", "../escape", "a/../../b", "/etc/passwd", ".", "a/./b", "a//b", "a/", "dir/..",
    ] {
      XCTAssertThrowsError(
        try ReferenceLocation(name: name, filePath: package.testFile(), environment: [:]),
        "name '\(name)'"
      ) { error in
        XCTAssertEqual(error as? ReferenceImageError, .invalidName(name))
      }
    }
  }

  func testInit_noPackageSwiftAbove_throwsNoPackageRoot() throws {
    let folder = try makeTemporaryFolder(self)
    let file = folder.appendingPathComponent("Tests/T/ATests.swift").path
    XCTAssertThrowsError(try ReferenceLocation(name: "a", filePath: file, environment: [:])) {
      XCTAssertEqual($0 as? ReferenceImageError, .noPackageRoot(filePath: file))
    }
  }

  func testInit_referenceDirVariable_movesEveryFolder() throws {
    let package = try TemporaryPackage(self)
    let relative = try ReferenceLocation(
      name: "bar", filePath: package.testFile(),
      environment: ["IMAGE_REFERENCE_DIR": "Snapshots/Linux"])
    XCTAssertEqual(relative.relativePath, "Snapshots/Linux/BarChartTests/bar.png")
    let absolute = try ReferenceLocation(
      name: "bar", filePath: package.testFile(),
      environment: ["IMAGE_REFERENCE_DIR": package.root.path + "/Refs"])
    XCTAssertEqual(absolute.relativePath, "Refs/BarChartTests/bar.png")
  }

  func testInit_explicitFolder_winsOverTheVariable() throws {
    let package = try TemporaryPackage(self)
    let location = try ReferenceLocation(
      name: "bar", filePath: package.testFile(), folder: URL(fileURLWithPath: "Custom/Place"),
      environment: ["IMAGE_REFERENCE_DIR": "Snapshots"])
    XCTAssertEqual(location.relativePath, "Custom/Place/bar.png")
  }

  func testInit_explicitAbsoluteFolderInsideThePackage_isUsedAsIs() throws {
    let package = try TemporaryPackage(self)
    let location = try ReferenceLocation(
      name: "bar", filePath: package.testFile(),
      folder: package.root.appendingPathComponent("Shared/Refs"), environment: [:])
    XCTAssertEqual(location.relativePath, "Shared/Refs/bar.png")
  }

  func testInit_explicitFolderRelativeToAnotherBase_resolvesAgainstThatBase() throws {
    let package = try TemporaryPackage(self)
    let base = package.root.appendingPathComponent("Tests", isDirectory: true)
    let location = try ReferenceLocation(
      name: "bar", filePath: package.testFile(),
      folder: URL(fileURLWithPath: "Refs", relativeTo: base), environment: [:])
    XCTAssertEqual(location.relativePath, "Tests/Refs/bar.png")
  }

  func testInit_folderOutsideThePackage_throwsOutsidePackage() throws {
    let package = try TemporaryPackage(self)
    let cases: [(folder: URL?, environment: [String: String])] = [
      (URL(fileURLWithPath: "/tmp/elsewhere"), [:]),
      (nil, ["IMAGE_REFERENCE_DIR": "../Sibling"]),
      (nil, ["IMAGE_REFERENCE_DIR": "/var/references"]),
      // A sibling whose name merely starts with the package's name is still outside.
      (nil, ["IMAGE_REFERENCE_DIR": package.root.path + "Twin"]),
    ]
    for (folder, environment) in cases {
      XCTAssertThrowsError(
        try ReferenceLocation(
          name: "bar", filePath: package.testFile(), folder: folder, environment: environment),
        "\(String(describing: folder)) \(environment)"
      ) { error in
        guard case .outsidePackage(let path, let root)? = error as? ReferenceImageError else {
          return XCTFail("unexpected error \(error)")
        }
        XCTAssertEqual(root, package.root.path)
        XCTAssertTrue(path.hasSuffix("/bar.png"), path)
        XCTAssertTrue(
          "\(error)".contains("outside the package"), "description: \(error)")
      }
    }
  }

  func testInit_emptyVariable_usesTheDefault() throws {
    let package = try TemporaryPackage(self)
    let location = try ReferenceLocation(
      name: "bar", filePath: package.testFile(), environment: ["IMAGE_REFERENCE_DIR": ""])
    XCTAssertEqual(location.relativePath, "Tests/ChartTests/__References__/BarChartTests/bar.png")
  }
}
