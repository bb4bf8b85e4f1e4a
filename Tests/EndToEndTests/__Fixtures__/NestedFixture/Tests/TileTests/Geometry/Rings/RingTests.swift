import Foundation
import ReferenceImageTesting
import Tiles
import XCTest

final class RingTests: XCTestCase {
  func testRing() throws {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("ring-\(UUID().uuidString).png")
    defer { try? FileManager.default.removeItem(at: file) }
    try Tiles.writeTile(to: file, size: 16, stripes: 4)
    assertImage(try RGBAImage(contentsOfPNG: file), named: "ring")
  }
}
