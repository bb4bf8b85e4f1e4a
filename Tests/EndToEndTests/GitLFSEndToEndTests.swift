import Foundation
import ReferenceContracts
import ReferenceImageCore
import XCTest

/// A checkout made without Git LFS has pointer files where the references should be: a real
/// `swift test` run says so and names `git lfs pull`, and never records over the pointer.
final class GitLFSEndToEndTests: XCTestCase {
  func testReferenceIsAGitLFSPointer_failsNamingGitLFSPull_andRecordsNothing() throws {
    let fixture = try FixturePackage.built()
    try fixture.reset()
    let generate = try fixture.test(
      ["--disable-swift-testing", "--filter", "BarChartTests"],
      environment: ["IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(generate.status, 0, generate.all)
    try fixture.unpackArchives()
    let bars = fixture.root.appendingPathComponent(
      "Tests/ChartTests/__References__/BarChartTests/bars.png")
    let png = try Data(contentsOf: bars)
    let pointer =
      "version https://git-lfs.github.com/spec/v1\noid sha256:\(SHA256.hex([UInt8](png)))\n"
      + "size \(png.count)\n"
    try Data(pointer.utf8).write(to: bars)

    let run = try fixture.test(
      ["--disable-swift-testing", "--filter", "BarChartTests"],
      environment: ["IMAGE_GENERATION_MODE": "failed"])
    XCTAssertNotEqual(run.status, 0, run.all)
    XCTAssertTrue(
      run.all.contains(
        "reference \(bars.path) is a Git LFS pointer file, not the image: Git LFS has not "
          + "fetched it; run `git lfs pull`"),
      run.all)
    XCTAssertFalse(run.all.contains("malformed PNG"), run.all)
    XCTAssertTrue(run.all.contains("Test Case 'BarChartTests.testBars' failed"), run.all)
    XCTAssertTrue(run.all.contains("Test Case 'BarChartTests.testFlatBars' passed"), run.all)
    XCTAssertEqual(try fixture.archives(), [], "the pointer is not recorded over")
    XCTAssertEqual(try String(contentsOf: bars, encoding: .utf8), pointer)
  }
}
