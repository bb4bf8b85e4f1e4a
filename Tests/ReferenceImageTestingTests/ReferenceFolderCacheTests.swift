import Foundation
import XCTest

@testable import ReferenceImageTesting

/// The reference folder kept per test file: the same answer every time, and never one kept for
/// another `IMAGE_REFERENCE_DIR`.
final class ReferenceFolderCacheTests: XCTestCase {
  func testLocation_sameFileAskedAgain_withAndWithoutTheVariable() throws {
    let package = try TemporaryPackage(self)
    let file = package.testFile()
    let plain = try ReferenceLocation(name: "a", filePath: file, environment: [:])
    let moved = try ReferenceLocation(
      name: "a", filePath: file, environment: ["IMAGE_REFERENCE_DIR": "Snapshots"])
    let again = try ReferenceLocation(name: "b/c", filePath: file, environment: [:])
    XCTAssertEqual(plain.relativePath, "Tests/ChartTests/__References__/BarChartTests/a.png")
    XCTAssertEqual(moved.relativePath, "Snapshots/BarChartTests/a.png")
    XCTAssertEqual(again.relativePath, "Tests/ChartTests/__References__/BarChartTests/b/c.png")
    XCTAssertEqual(
      again.url.path, package.root.appendingPathComponent(again.relativePath).path)
    XCTAssertThrowsError(
      try ReferenceLocation(
        name: "a", filePath: file, environment: ["IMAGE_REFERENCE_DIR": "../Outside"])
    ) {
      guard case .outsidePackage = $0 as? ReferenceImageError else {
        return XCTFail("\($0)")
      }
    }
  }
}
