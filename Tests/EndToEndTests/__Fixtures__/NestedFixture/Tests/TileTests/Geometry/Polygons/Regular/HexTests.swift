import Foundation
import ReferenceImageTesting
import Tiles
import XCTest

/// Three folders below the target: its references live in the target's one root.
final class HexTests: XCTestCase {
  func testHex() throws {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("hex-\(UUID().uuidString).png")
    defer { try? FileManager.default.removeItem(at: file) }
    try Tiles.writeTile(to: file, size: 24, stripes: 6)
    assertImage(pngFile: file, named: "hex")
  }
}
