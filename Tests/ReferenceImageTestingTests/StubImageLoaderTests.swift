import Foundation
import ReferenceImageCore
import ReferenceImageTesting
import XCTest

final class StubImageLoaderTests: XCTestCase {
  private let avatar = URL(string: "https://images.example.com/avatars/ada.png")!
  private let thumbnail = URL(string: "https://images.example.com/thumbs/engine.png")!
  private let red = RGBAColor(red: 239, green: 68, blue: 68)

  func testCached_stubbedColor_returnsSolidImageOfTheRequestedSize() throws {
    let stub = StubImageLoader(reportingTo: { XCTFail("unexpected failure: \($0.message)") })
    stub.stub(avatar, color: red, width: 3, height: 2)
    let image = try XCTUnwrap(stub.loader().cached(avatar))
    XCTAssertEqual(image, try RGBAImage(width: 3, height: 2, color: red))
  }

  func testLoad_stubbedImage_returnsItWithoutWaiting() async throws {
    let stub = StubImageLoader(reportingTo: { XCTFail("unexpected failure: \($0.message)") })
    let checker = try RGBAImage(width: 2, height: 1, pixels: [0, 0, 0, 255, 255, 255, 255, 255])
    stub.stub(thumbnail, image: checker)
    let loaded = try await stub.loader().load(thumbnail)
    XCTAssertEqual(loaded, checker)
    XCTAssertEqual(stub.requestedURLs, [thumbnail])
  }

  func testCached_unstubbedURL_reportsTheURLAtTheLoaderCallAndReturnsPlaceholder() throws {
    let failures = FailureLog()
    let stub = StubImageLoader(reportingTo: failures.append)
    stub.stub(avatar, color: red)
    let loaderLine: UInt = #line + 1
    let loader = stub.loader()

    let image = try XCTUnwrap(loader.cached(thumbnail))

    XCTAssertEqual(
      image, try RGBAImage(width: 1, height: 1, color: .init(red: 255, green: 0, blue: 255)))
    XCTAssertEqual(StubImageLoader.placeholderColor, RGBAColor(red: 255, green: 0, blue: 255))
    let failure = try XCTUnwrap(failures.all.first)
    XCTAssertEqual(failures.all.count, 1)
    XCTAssertEqual(failure.url, thumbnail)
    XCTAssertTrue(
      failure.message.contains("https://images.example.com/thumbs/engine.png"), failure.message)
    XCTAssertTrue(failure.message.contains("#FF00FF"), failure.message)
    XCTAssertEqual(failure.line, loaderLine)
    XCTAssertEqual("\(failure.filePath)", #filePath)
    XCTAssertEqual(failure.fileID, #fileID)
  }

  func testImageFor_unstubbedURL_pointsAtTheStubsCreation() throws {
    let failures = FailureLog()
    let creationLine: UInt = #line + 1
    let stub = StubImageLoader(reportingTo: failures.append)
    _ = stub.image(for: avatar)
    XCTAssertEqual(failures.all.map(\.line), [creationLine])
  }

  func testLookups_sameUnstubbedURLTwice_reportOnce() async throws {
    let failures = FailureLog()
    let stub = StubImageLoader(reportingTo: failures.append)
    let loader = stub.loader()
    _ = loader.cached(avatar)
    _ = try await loader.load(avatar)
    _ = loader.cached(thumbnail)
    XCTAssertEqual(failures.all.map(\.url), [avatar, thumbnail])
    XCTAssertEqual(stub.requestedURLs, [avatar, avatar, thumbnail])
  }

  func testLookups_concurrent_everyStubAnsweredAndEveryMissReportedOnce() throws {
    let failures = FailureLog()
    let stub = StubImageLoader(reportingTo: failures.append)
    let urls = (0..<64).map { URL(string: "https://images.example.com/\($0).png")! }
    for (index, url) in urls.enumerated() where index % 2 == 0 {
      stub.stub(url, color: RGBAColor(red: UInt8(index), green: 0, blue: 0))
    }
    let loader = stub.loader()
    DispatchQueue.concurrentPerform(iterations: 1024) { iteration in
      let index = iteration % urls.count
      let image = loader.cached(urls[index])
      let expected = index % 2 == 0 ? UInt8(index) : 255
      if image?[0, 0].red != expected { XCTFail("wrong image for \(urls[index])") }
    }
    XCTAssertEqual(
      Set(failures.all.map(\.url)), Set(urls.enumerated().filter { $0.0 % 2 == 1 }.map(\.1)))
    XCTAssertEqual(failures.all.count, urls.count / 2)
    XCTAssertEqual(stub.requestedURLs.count, 1024)
  }
}

/// Collects the failures a stub reports, from any thread.
private final class FailureLog: @unchecked Sendable {
  private let lock = NSLock()
  private var failures: [StubImageLoader.Failure] = []

  var all: [StubImageLoader.Failure] {
    lock.lock()
    defer { lock.unlock() }
    return failures
  }

  @Sendable func append(_ failure: StubImageLoader.Failure) {
    lock.lock()
    defer { lock.unlock() }
    failures.append(failure)
  }
}
