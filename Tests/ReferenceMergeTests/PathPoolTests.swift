import XCTest

@testable import ReferenceMerge

final class PathPoolTests: XCTestCase {
  /// Paths that share folders, prefixes of folders, names across folders, and a folder
  /// that sorts differently from its path (`a/b-x/…` before `a/b/…`, though `a/b` before
  /// `a/b-x`).
  private let asciiPaths = [
    "a/b/c.png", "a/b-x/d.png", "a/b/c.png.png", "a/bc.png", "a/b/", "top.png", "a/b/c",
    "Tests/__References__/Suite/test1-icon2.png", "Tests/__References__/Suite/test1-icon10.png",
    "Tests/__References__/Suite2/test1-icon2.png", "", "/", "a//b.png", "A/b.png",
  ]
  /// Paths whose string order and equality are not their bytes': a Kelvin sign and a Greek
  /// question mark, each canonically equal to an ASCII character, and a combining accent.
  private let unicodePaths = [
    "a/\u{212A}.png", "a/K.png", "a/x\u{37E}.png", "a/x;.png", "a/e\u{301}.png", "a/\u{E9}.png",
    "\u{E9}/x.png", "e\u{301}/y.png", "\u{E9}/z.png",
  ]

  func testPool_givesBackEveryPathInItsOrder() {
    for paths in [asciiPaths, unicodePaths, []] {
      let pool = PathPool(paths)
      XCTAssertEqual(pool.count, paths.count)
      // Byte for byte: `String` equality would take a composed é for a decomposed one.
      XCTAssertEqual(paths.indices.map { Array(pool.path($0).utf8) }, paths.map { Array($0.utf8) })
    }
  }

  func testOrderAndEquality_areTheStrings_pooledOrNot() {
    for paths in [asciiPaths, unicodePaths, asciiPaths + unicodePaths] {
      let pool = PathPool(paths)
      let pooled = paths.indices.map { PooledPath(pool, $0) }
      let loose = paths.map(PooledPath.init)
      for (a, aPath) in zip(pooled + loose, paths + paths) {
        for (b, bPath) in zip(pooled + loose, paths + paths) {
          XCTAssertEqual(a < b, aPath < bPath, "\(aPath) < \(bPath)")
          XCTAssertEqual(a == b, aPath == bPath, "\(aPath) == \(bPath)")
          if a == b { XCTAssertEqual(a.hashValue, b.hashValue, "\(aPath), \(bPath)") }
          XCTAssertEqual(
            a.order(to: SoughtPath(bPath)).signum(), aPath < bPath ? -1 : aPath == bPath ? 0 : 1,
            "\(aPath) sought \(bPath)")
        }
      }
    }
  }

  func testOrder_ofManyGeneratedPaths_isTheStrings() {
    var generator = SystemRandomNumberGenerator()
    let pieces = ["a", "b", "ab", "-", "_", ".png", "1", "10", "2"]
    func piece() -> String { pieces.randomElement(using: &generator)! }
    let paths = (0..<400).map { _ in
      (0..<Int.random(in: 1...4, using: &generator)).map { _ in piece() + piece() }
        .joined(separator: "/")
    }
    let pool = PathPool(paths)
    let sorted = paths.indices.sorted { PooledPath(pool, $0) < PooledPath(pool, $1) }
    XCTAssertEqual(sorted.map { paths[$0] }, paths.sorted())
  }

  /// The reason the pool exists: an image costs its name's bytes beside a 16-byte path.
  func testImage_isSmallerThanItWas() {
    XCTAssertEqual(MemoryLayout<PooledPath>.size, 12)
    XCTAssertEqual(MemoryLayout<SourceInventory.Image>.stride, 112)
  }
}
