import ChartRenderer
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An `ImageDataSession` that never touches the network: it records every task it creates and
/// lets the test answer each one.
final class MockImageSession: ImageDataSession, @unchecked Sendable {
  private let lock = NSLock()
  private var created: [MockDataTask] = []
  private let stream: AsyncStream<MockDataTask>
  private let sink: AsyncStream<MockDataTask>.Continuation

  init() {
    (stream, sink) = AsyncStream.makeStream(of: MockDataTask.self)
  }

  /// Every task created so far, in order.
  var tasks: [MockDataTask] {
    lock.lock()
    defer { lock.unlock() }
    return created
  }

  /// The tasks as they are created, for tests that wait for a request to go out.
  func taskStream() -> AsyncStream<MockDataTask> { stream }

  func imageDataTask(
    with request: URLRequest,
    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  ) -> any ImageDataTask {
    let task = MockDataTask(request: request, completionHandler: completionHandler)
    lock.lock()
    created.append(task)
    lock.unlock()
    sink.yield(task)
    return task
  }
}

/// One request of `MockImageSession`; calls its completion handler exactly once, like
/// `URLSessionDataTask`, also when cancelled.
final class MockDataTask: ImageDataTask, @unchecked Sendable {
  let request: URLRequest
  private let completionHandler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  private let lock = NSLock()
  private var resumed = false
  private var cancelled = false
  private var completed = false

  init(
    request: URLRequest,
    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  ) {
    self.request = request
    self.completionHandler = completionHandler
  }

  var isResumed: Bool { locked { resumed } }
  var isCancelled: Bool { locked { cancelled } }

  func resume() { locked { resumed = true } }

  func cancel() {
    locked { cancelled = true }
    complete(nil, nil, URLError(.cancelled))
  }

  /// Answers with an HTTP status and a body.
  func respond(status: Int = 200, body: Data) {
    let url = request.url ?? URL(fileURLWithPath: "/")
    let response = HTTPURLResponse(
      url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])
    complete(body, response, nil)
  }

  /// Fails without a response, like a dropped connection.
  func fail(_ error: any Error) {
    complete(nil, nil, error)
  }

  private func complete(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) {
    let first = locked { () -> Bool in
      defer { completed = true }
      return !completed
    }
    if first { completionHandler(data, response, error) }
  }

  private func locked<Value>(_ body: () -> Value) -> Value {
    lock.lock()
    defer { lock.unlock() }
    return body()
  }
}
