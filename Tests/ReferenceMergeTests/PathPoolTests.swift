import MergeTestSupport
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

  /// Names past 64 KiB in all (their ends no longer fit 16 bits), and folders that come back
  /// after others, as unsorted paths do: every path comes back, and orders as its string.
  func testPool_ofLongNamesAndFoldersThatComeBack_givesBackEveryPath() {
    let paths = (0..<1_500).map { index in
      "Tests/__References__/Suite\(index % 7 < 3 ? 1 : index % 5)/"
        + String(repeating: "n", count: 40 + index % 50) + "\(index).png"
    }
    let pool = PathPool(paths)
    XCTAssertGreaterThan(paths.reduce(0) { $0 + $1.utf8.count }, 1 << 16)
    XCTAssertEqual(paths.indices.map(pool.path), paths)
    for (a, b) in zip(paths.indices, paths.indices.dropFirst(1)) {
      XCTAssertEqual(PooledPath(pool, a) < PooledPath(pool, b), paths[a] < paths[b])
    }
  }

  /// A run's names share their start, kept once: runs of one path, of names one a prefix of
  /// another, and of names whose shared bytes end inside a character (é and è share their
  /// first byte) give back every path byte for byte, and order as their strings.
  func testPool_ofNamesThatShareTheirStart_givesBackEveryPath() {
    let paths = [
      "T/__References__/S/test12-icon1.png", "T/__References__/S/test12-icon10.png",
      "T/__References__/S/test12-icon2.png", "T/__References__/S/test12", "T/lone.png",
      "T/__References__/S/test12-icon1.png.png", "u/\u{E9}a.png", "u/\u{E8}a.png",
      "u/\u{E9}", "top.png", "top.png2", "T/__References__/S/test12-icon3.png",
    ]
    let pool = PathPool(paths)
    XCTAssertEqual(paths.indices.map { Array(pool.path($0).utf8) }, paths.map { Array($0.utf8) })
    for a in paths.indices {
      for b in paths.indices {
        XCTAssertEqual(
          PooledPath(pool, a) < PooledPath(pool, b), paths[a] < paths[b], "\(paths[a]), \(paths[b])"
        )
        XCTAssertEqual(PooledPath(pool, a) == PooledPath(pool, b), a == b)
      }
    }
  }

  /// Every path of a pool ends alike (`.png`, or more), kept once: names that are all the
  /// shared end, one name the end of another, a run whose shared start meets the shared end,
  /// and a shared end that starts inside a character (é and ũ share their last byte) give back
  /// every path byte for byte, and order as their strings, against other pools' paths too.
  func testPool_ofPathsThatEndAlike_givesBackEveryPath() {
    let pools = [
      ["a/x.png", "a/yx.png", "b/.png", "b/c/zx.png", "x.png", "a/x.png"],
      [
        "T/S/test1-icon1.png", "T/S/test1-icon10.png", "T/S/test1-icon2.png", "T/S/test1-icon3.png",
      ],
      ["u/x\u{E9}", "u/y\u{169}", "v/\u{E9}"],
      ["T/S/abab", "T/S/ab", "T/S/abcab"],
      ["lone/one-path-alone.png"],
      // A run's prefix met again in a later run is kept once, and both runs' paths come back.
      ["a/x1.png", "a/x2.png", "b/y.png", "b/z.png", "a/x3.png", "a/x4.png", "b/y2.png"],
    ]
    let all = pools.flatMap { $0 }
    let pooled = pools.flatMap { paths in
      let pool = PathPool(paths)
      XCTAssertEqual(
        paths.indices.map { Array(pool.path($0).utf8) }, paths.map { Array($0.utf8) }, "\(paths)")
      return paths.indices.map { PooledPath(pool, $0) }
    }
    for (a, aPath) in zip(pooled, all) {
      for (b, bPath) in zip(pooled, all) {
        XCTAssertEqual(a < b, aPath < bPath, "\(aPath) < \(bPath)")
        XCTAssertEqual(a == b, aPath == bPath, "\(aPath) == \(bPath)")
        XCTAssertEqual(
          a.order(to: SoughtPath(bPath)).signum(), aPath < bPath ? -1 : aPath == bPath ? 0 : 1,
          "\(aPath) sought \(bPath)")
      }
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

  /// The reason the pool exists: an image costs its name's bytes beside a 12-byte place, and
  /// its record (digests and size) is the pool's (`ImageSpill`).
  func testImage_isSmallerThanItWas() {
    XCTAssertEqual(MemoryLayout<PooledPath>.size, 12)
    XCTAssertEqual(MemoryLayout<SourceInventory.Image>.stride, 24)
  }

  /// A source's images of one test hold one origin (test and kept failure), not one each; an
  /// image that kept a failure has its own.
  func testImagesOfOneTest_shareOneOrigin_unlessTheyKeptAFailure() throws {
    let merge = try MergeScenario(self)
    try merge.archive("run.zip", ["a": .seed(1), "b": .seed(2), "c": .seed(3), "d": .seed(4)]) {
      for name in ["a", "b", "c"] { $0.owners[merge.path(name)] = "ChartTests.testOne()" }
      $0.owners[merge.path("d")] = "ChartTests.testTwo()"
      $0.failedComparisons[merge.path("c")] = .init(
        referencePixelSHA256: nil, comparison: "exact", verdict: "no reference",
        differingPixels: nil, totalPixels: 256, file: "Tests/ChartTests.swift", line: 3)
    }

    let verdict = merge.plan()

    let images = try ["a", "b", "c", "d"].map { try XCTUnwrap(verdict.item($0)?.chosen?.image) }
    XCTAssertEqual(
      images.map(\.test),
      [
        "ChartTests.testOne()", "ChartTests.testOne()", "ChartTests.testOne()",
        "ChartTests.testTwo()",
      ])
    XCTAssertTrue(images[0].origin === images[1].origin, "one test, one origin")
    XCTAssertNotNil(images[2].failedComparison)
    XCTAssertFalse(images[2].origin === images[0].origin, "a kept failure is the image's own")
    XCTAssertFalse(images[3].origin === images[0].origin, "another test")
  }
}
