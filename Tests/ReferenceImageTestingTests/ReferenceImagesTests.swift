import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceImageTesting

final class ReferenceImagesTests: XCTestCase {
  func testLoadReference_notAPNG_throwsUnreadableReferenceNamingPathAndFix() throws {
    let package = try TemporaryPackage(self)
    let location = try package.location("broken")
    try FileManager.default.createDirectory(
      at: location.url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("this is not a PNG".utf8).write(to: location.url)
    XCTAssertThrowsError(try ReferenceImages.loadReference(at: location)) { error in
      guard case .unreadableReference(let path, _)? = error as? ReferenceImageError else {
        return XCTFail("unexpected error \(error)")
      }
      XCTAssertEqual(path, location.url.path)
      let text = "\(error)"
      XCTAssertTrue(text.contains(location.url.path), text)
      XCTAssertTrue(text.contains("IMAGE_GENERATION_MODE=missing"), text)
    }
  }

  func testLoadReference_truncatedPNG_throwsUnreadableReference() throws {
    let package = try TemporaryPackage(self)
    let location = try package.location("truncated")
    let png = try PNGEncoder().encode(try sampleImage(seed: 5))
    try FileManager.default.createDirectory(
      at: location.url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(png.prefix(png.count / 2)).write(to: location.url)
    XCTAssertThrowsError(try ReferenceImages.loadReference(at: location)) {
      guard case .unreadableReference? = $0 as? ReferenceImageError else {
        return XCTFail("unexpected error \($0)")
      }
    }
  }

  func testLoadReference_folderInsteadOfFile_throwsUnreadableReference() throws {
    let package = try TemporaryPackage(self)
    let location = try package.location("folder")
    try FileManager.default.createDirectory(at: location.url, withIntermediateDirectories: true)
    XCTAssertThrowsError(try ReferenceImages.loadReference(at: location)) {
      guard case .unreadableReference(let path, _)? = $0 as? ReferenceImageError else {
        return XCTFail("unexpected error \($0)")
      }
      XCTAssertEqual(path, location.url.path)
    }
  }

  func testLoadReference_missingFile_returnsNil() throws {
    let package = try TemporaryPackage(self)
    XCTAssertNil(try ReferenceImages.loadReference(at: try package.location("absent")))
  }

  func testLoadReference_validPNG_returnsItsPixels() throws {
    let package = try TemporaryPackage(self)
    let location = try package.location("good")
    let image = try sampleImage(seed: 9)
    try FileManager.default.createDirectory(
      at: location.url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(try PNGEncoder().encode(image)).write(to: location.url)
    XCTAssertEqual(try ReferenceImages.loadReference(at: location), image)
  }
}
