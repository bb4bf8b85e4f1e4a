import ChartRenderer
import Foundation
import ReferenceImageCore
import XCTest

private let url = URL(string: "https://images.example.com/avatars/ada.png")!
private let image = try! RGBAImage(width: 3, height: 2, color: RGBAColor(hex: 0x3B82F6))
private let png = Data(try! PNGEncoder().encode(image))

final class RemoteImageClientTests: XCTestCase {
  func testImage_success_requestsTheURLAndDecodesThePNG() async throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    var requests = session.taskStream().makeAsyncIterator()

    let load = Task { try await client.image(for: url) }
    let task = try unwrapTask(await requests.next())
    XCTAssertEqual(task.request.url, url)
    XCTAssertTrue(task.isResumed)
    task.respond(body: png)

    let loaded = try await load.value
    XCTAssertEqual(loaded, image)
  }

  func testImage_httpError_throwsNamingURLAndStatus() async throws {
    for status in [404, 500] {
      let session = MockImageSession()
      let client = RemoteImageClient(session: session)
      var requests = session.taskStream().makeAsyncIterator()
      let load = Task { try await client.image(for: url) }
      try unwrapTask(await requests.next()).respond(status: status, body: Data("no".utf8))

      let error = await errorOf(load)
      guard case .httpStatus(let failedURL, let failedStatus) = error as? RemoteImageError else {
        return XCTFail("expected an HTTP status error, got \(String(describing: error))")
      }
      XCTAssertEqual(failedURL, url)
      XCTAssertEqual(failedStatus, status)
      XCTAssertEqual(
        "\(error!)",
        "loading https://images.example.com/avatars/ada.png failed with HTTP status \(status)")
      XCTAssertNil(client.cachedImage(for: url), "errors are not cached")
    }
  }

  func testImage_undecodableData_throwsNamingURL() async throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    var requests = session.taskStream().makeAsyncIterator()
    let load = Task { try await client.image(for: url) }
    try unwrapTask(await requests.next()).respond(body: Data("<html>".utf8))

    let error = await errorOf(load)
    guard case .undecodable(let failedURL, _) = error as? RemoteImageError else {
      return XCTFail("expected an undecodable error, got \(String(describing: error))")
    }
    XCTAssertEqual(failedURL, url)
    XCTAssertTrue(
      "\(error!)".hasPrefix(
        "the image at https://images.example.com/avatars/ada.png is not a readable PNG"),
      "\(error!)")
  }

  func testImage_transportError_throwsNamingURL() async throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    var requests = session.taskStream().makeAsyncIterator()
    let load = Task { try await client.image(for: url) }
    try unwrapTask(await requests.next()).fail(URLError(.notConnectedToInternet))

    let error = await errorOf(load)
    XCTAssertEqual((error as? RemoteImageError)?.url, url)
    XCTAssertTrue("\(error!)".contains(url.absoluteString), "\(error!)")
  }

  func testImage_cacheHit_makesNoSecondRequest() async throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    var requests = session.taskStream().makeAsyncIterator()
    XCTAssertNil(client.imageLoader.cached(url))
    let first = Task { try await client.image(for: url) }
    try unwrapTask(await requests.next()).respond(body: png)
    _ = try await first.value

    let second = try await client.image(for: url)
    let throughLoader = try await client.imageLoader.load(url)

    XCTAssertEqual(second, image)
    XCTAssertEqual(throughLoader, image)
    XCTAssertEqual(client.imageLoader.cached(url), image)
    XCTAssertEqual(session.tasks.count, 1)
  }

  func testCache_pastItsLimit_evictsTheOldestImage() async throws {
    let session = MockImageSession()
    // Room for one 3 x 2 image (24 bytes), not two.
    let client = RemoteImageClient(session: session, maximumCachedBytes: 40)
    var requests = session.taskStream().makeAsyncIterator()
    let other = URL(string: "https://images.example.com/avatars/grace.png")!
    for target in [url, other] {
      let load = Task { try await client.image(for: target) }
      try unwrapTask(await requests.next()).respond(body: png)
      _ = try await load.value
    }
    XCTAssertNil(client.cachedImage(for: url))
    XCTAssertEqual(client.cachedImage(for: other), image)
  }

  func testLoad_concurrentWaiters_shareOneInFlightRequest() throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    let queue = DispatchQueue(label: "test.delivery")
    let deliveries = Deliveries()

    // load(_:on:completion:) registers its waiter before returning, so both wait together.
    client.load(url, on: queue, completion: deliveries.append)
    client.load(url, on: queue, completion: deliveries.append)
    XCTAssertEqual(session.tasks.count, 1)
    session.tasks[0].respond(body: png)
    queue.sync {}  // the completions were queued when respond returned; let them run

    XCTAssertEqual(try deliveries.all.map { try $0.get() }, [image, image])
    XCTAssertEqual(session.tasks.count, 1)
  }

  func testImage_cancellingTheOnlyWaiter_cancelsTheRequest() async throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    var requests = session.taskStream().makeAsyncIterator()
    let load = Task { try await client.image(for: url) }
    let task = try unwrapTask(await requests.next())
    XCTAssertFalse(task.isCancelled)

    load.cancel()

    let error = await errorOf(load)
    XCTAssertTrue(error is CancellationError, "got \(String(describing: error))")
    XCTAssertTrue(task.isCancelled)
    XCTAssertNil(client.cachedImage(for: url))
  }

  func testImage_alreadyCancelledTask_throwsWithoutARequest() async throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    let (started, startedSink) = AsyncStream.makeStream(of: Void.self)
    let (gate, gateSink) = AsyncStream.makeStream(of: Void.self)
    let load = Task {
      startedSink.yield()
      for await _ in gate {}  // returns once the test cancels and finishes the gate
      return try await client.image(for: url)
    }
    for await _ in started.prefix(1) {}
    load.cancel()
    gateSink.finish()

    let error = await errorOf(load)
    XCTAssertTrue(error is CancellationError, "got \(String(describing: error))")
    XCTAssertEqual(session.tasks.count, 0)
  }

  func testLoad_twoWaiters_requestCancelledOnlyWhenBothAreGone() throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    let queue = DispatchQueue(label: "test.delivery")
    let deliveries = Deliveries()
    let first = client.load(url, on: queue, completion: deliveries.append)
    let second = client.load(url, on: queue, completion: deliveries.append)
    let task = try XCTUnwrap(session.tasks.first)

    first.cancel()
    XCTAssertFalse(task.isCancelled, "the second waiter still wants the image")
    second.cancel()
    XCTAssertTrue(task.isCancelled)
    queue.sync {}

    XCTAssertEqual(deliveries.all.count, 2)
    for result in deliveries.all {
      XCTAssertThrowsError(try result.get()) { XCTAssertTrue($0 is CancellationError, "\($0)") }
    }
  }

  func testImage_afterACancelledRequest_startsAFreshOneAndIgnoresTheLateAnswer() async throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    var requests = session.taskStream().makeAsyncIterator()
    let abandoned = Task { try await client.image(for: url) }
    let oldTask = try unwrapTask(await requests.next())
    abandoned.cancel()
    _ = await errorOf(abandoned)

    let load = Task { try await client.image(for: url) }
    let newTask = try unwrapTask(await requests.next())
    oldTask.respond(status: 500, body: Data())  // already completed as cancelled: ignored
    newTask.respond(body: png)

    let loaded = try await load.value
    XCTAssertEqual(loaded, image)
    XCTAssertEqual(session.tasks.count, 2)
  }

  func testLoad_completion_runsOnTheChosenQueue() throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    let key = DispatchSpecificKey<String>()
    let queue = DispatchQueue(label: "test.delivery")
    queue.setSpecific(key: key, value: "delivery")
    let labels = Deliveries()

    client.load(url, on: queue) { _ in labels.note(DispatchQueue.getSpecific(key: key)) }
    try XCTUnwrap(session.tasks.first).respond(body: png)  // answered on the test's thread
    client.load(url, on: queue) { _ in labels.note(DispatchQueue.getSpecific(key: key)) }  // cached
    queue.sync {}

    XCTAssertEqual(labels.queueLabels, ["delivery", "delivery"])
  }

  func testImage_calledFromAnActor_resumesOnThatActor() async throws {
    let session = MockImageSession()
    let client = RemoteImageClient(session: session)
    var requests = session.taskStream().makeAsyncIterator()
    let consumer = ImageConsumer()
    let load = Task { try await consumer.show(url, from: client) }
    // Answer from another queue, the way URLSession calls back on its delegate queue.
    let task = try unwrapTask(await requests.next())
    let body = png
    DispatchQueue.global().async { task.respond(body: body) }

    let size = try await load.value
    XCTAssertEqual(size, 3 * 2)
  }

  // MARK: Helpers

  private func errorOf(_ task: Task<RGBAImage, any Error>) async -> (any Error)? {
    do {
      _ = try await task.value
      return nil
    } catch {
      return error
    }
  }
}

/// An actor that stores what it loads: the assignment after `await` compiles only because the
/// call resumes on the actor, and `assertIsolated` checks it at run time too.
private actor ImageConsumer {
  var shown: RGBAImage?

  func show(_ url: URL, from client: RemoteImageClient) async throws -> Int {
    let image = try await client.image(for: url)
    assertIsolated("image(for:) must resume on the calling actor")
    shown = image
    return image.pixelCount
  }
}

/// The task `requests.next()` produced, or a failure saying the session made none.
private func unwrapTask<Value>(
  _ value: Value?, file: StaticString = #filePath, line: UInt = #line
) throws -> Value {
  try XCTUnwrap(value, "the mock session created no task", file: file, line: line)
}

/// What `load(_:on:completion:)` delivered, collected from any queue.
private final class Deliveries: @unchecked Sendable {
  private let lock = NSLock()
  private var results: [Result<RGBAImage, any Error>] = []
  private var labels: [String?] = []

  var all: [Result<RGBAImage, any Error>] {
    lock.lock()
    defer { lock.unlock() }
    return results
  }

  var queueLabels: [String?] {
    lock.lock()
    defer { lock.unlock() }
    return labels
  }

  @Sendable func append(_ result: Result<RGBAImage, any Error>) {
    lock.lock()
    defer { lock.unlock() }
    results.append(result)
  }

  func note(_ label: String?) {
    lock.lock()
    defer { lock.unlock() }
    labels.append(label)
  }
}
