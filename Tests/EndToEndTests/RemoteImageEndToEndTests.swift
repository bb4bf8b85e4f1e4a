import Foundation
import XCTest

/// `StubImageLoader` in a real `swift test` run: an un-stubbed URL fails the Swift Testing test
/// that looked it up, naming the URL and pointing at the line that made the loader.
final class RemoteImageEndToEndTests: XCTestCase {
  func testUnstubbedURL_failsTheSwiftTestingTestNamingTheURL() throws {
    let fixture = try FixturePackage.built()
    try fixture.reset()
    let run = try fixture.test(
      ["--disable-xctest", "--filter", "UnstubbedImage"],
      environment: ["RENDER_FIXTURE_UNSTUBBED": "1"])

    XCTAssertNotEqual(run.status, 0, run.all)
    XCTAssertTrue(
      run.all.contains(
        "no stubbed image for https://images.example.com/not-stubbed.png: the render shows the "
          + "placeholder colour (magenta, #FF00FF) there"),
      run.all)
    XCTAssertTrue(run.all.contains("UnstubbedImage.swift:13"), "points at loader()\n\(run.all)")
    XCTAssertTrue(run.all.contains("1 issue"), run.all)
    XCTAssertEqual(try fixture.archives(), [], "the failing test stored no image")
  }

  func testUnstubbedURL_withoutTheVariable_isSkipped() throws {
    let fixture = try FixturePackage.built()
    try fixture.reset()
    let run = try fixture.test(
      ["--disable-xctest", "--filter", "UnstubbedImage"], environment: [:])

    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertFalse(run.all.contains("not-stubbed.png"), run.all)
    XCTAssertTrue(run.all.contains("skipped"), run.all)
  }
}
