import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One HTTP request as the network stores send it.
struct HTTPRequest: Sendable {
  var method: String
  var url: URL
  var headers: [String: String] = [:]
  var body: [UInt8]? = nil
}

/// An answer: the status, the headers (names lowercased) and the body.
struct HTTPResponse: Sendable {
  var status: Int
  var headers: [String: String]
  var body: [UInt8]
  /// The URL that answered, after redirects.
  var url: URL

  func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why a request got no usable answer. Texts name no URL's query and no header, so no
/// credential can reach an error through them.
enum TransportFailure: Error, Equatable {
  case timedOut(seconds: TimeInterval)
  case connection(String)
  /// The answer's body is over the limit: its announced length, or at least `received` bytes.
  case tooLarge(size: Int)
  case truncated(received: Int, expected: Int)
  case redirectLoop(at: String)
  case tooManyRedirects(Int)

  /// Worth sending again: the store may answer next time.
  var isTransient: Bool {
    switch self {
    case .timedOut, .connection, .truncated: return true
    case .tooLarge, .redirectLoop, .tooManyRedirects: return false
    }
  }

  var reason: String {
    switch self {
    case .timedOut(let seconds):
      return "timed out: no answer for \(Self.seconds(seconds))"
    case .connection(let message): return message
    case .tooLarge(let size): return "its answer has \(size) bytes or more"
    case .truncated(let received, let expected):
      return "the answer was cut short: \(received) of the \(expected) bytes it announced"
    case .redirectLoop(let at): return "redirect loop: it redirected back to \(at)"
    case .tooManyRedirects(let count): return "over \(count) redirects"
    }
  }

  /// The store's error for this failure of a request for `key` (nil for a listing): over the
  /// reader's limit, or unreachable, saying how many tries were made.
  func storeError(store: String, key: ObjectKey?, limit: Int, policy: NetworkPolicy)
    -> StoreError
  {
    if case .tooLarge(let size) = self, let key {
      return .tooLarge(store: store, key: key, size: size, limit: limit)
    }
    let tried = isTransient && policy.tries > 1 ? " (\(policy.tries) tries)" : ""
    return .unreachable(store: store, key: key, reason: reason + tried)
  }

  static func seconds(_ value: TimeInterval) -> String {
    value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
  }
}

/// Blocking HTTP on one `URLSession`: the network stores' calls block on a semaphore, as the
/// `ObjectStore` protocol asks.
///
/// Redirects are never followed by the session: `send` follows them itself, so that it can
/// count them, catch a loop, and ask `headers(for:)` again for each URL, which gives
/// credentials only to the host they are bound to. A body is read with a limit: an announced
/// length over it cancels the request before the body comes, and so does a received count
/// over it; a body shorter than its announced length is refused as truncated.
final class HTTPClient: @unchecked Sendable {
  let policy: NetworkPolicy
  private let session: URLSession
  private let delegate: Delegate

  init(policy: NetworkPolicy) {
    self.policy = policy
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = policy.timeout
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.urlCredentialStorage = nil
    delegate = Delegate()
    session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
  }

  deinit {
    session.finishTasksAndInvalidate()
  }

  /// Sends a request, following redirects, retrying what is transient.
  /// - Parameters:
  ///   - request: The request; its headers are sent to every URL.
  ///   - limit: The largest body accepted.
  ///   - followRedirects: false to hand a 3xx answer back as it is (S3: a signature is bound
  ///     to its URL).
  ///   - headers: Headers for one URL (credentials, a signature), asked again for each URL a
  ///     redirect names.
  /// - Returns: The last answer; a 5xx answer when every try got one.
  func send(
    _ request: HTTPRequest, limit: Int, followRedirects: Bool = true,
    headers: (HTTPRequest) -> [String: String] = { _ in [:] }
  ) -> Result<HTTPResponse, TransportFailure> {
    var wait = policy.backoff
    var outcome: Result<HTTPResponse, TransportFailure> = .failure(.connection("not sent"))
    for attempt in 1...policy.tries {
      outcome = sendFollowing(request, limit: limit, followRedirects: followRedirects, headers)
      switch outcome {
      case .success(let response) where !Self.isRetried(response.status): return outcome
      case .failure(let failure) where !failure.isTransient: return outcome
      default: break
      }
      if attempt < policy.tries {
        Thread.sleep(forTimeInterval: wait)
        wait *= 2
      }
    }
    return outcome
  }

  /// 5xx and 429 (too many requests) are answered again by a store that recovers.
  static func isRetried(_ status: Int) -> Bool { status >= 500 || status == 429 }

  private func sendFollowing(
    _ original: HTTPRequest, limit: Int, followRedirects: Bool,
    _ headers: (HTTPRequest) -> [String: String]
  ) -> Result<HTTPResponse, TransportFailure> {
    var request = original
    var visited: Set<String> = [Self.withoutQuery(request.url)]
    var redirects = 0
    while true {
      var sent = request
      sent.headers.merge(headers(request)) { _, new in new }
      let response: HTTPResponse
      switch sendOnce(sent, limit: limit) {
      case .failure(let failure): return .failure(failure)
      case .success(let answer): response = answer
      }
      guard followRedirects, [301, 302, 303, 307, 308].contains(response.status),
        let location = response.header("location"),
        let next = URL(string: location, relativeTo: request.url)?.absoluteURL
      else { return .success(response) }
      let shown = Self.withoutQuery(next)
      guard visited.insert(shown).inserted else { return .failure(.redirectLoop(at: shown)) }
      redirects += 1
      guard redirects <= policy.redirects else {
        return .failure(.tooManyRedirects(policy.redirects))
      }
      if response.status == 303 {
        request = HTTPRequest(method: request.method == "HEAD" ? "HEAD" : "GET", url: next)
      } else {
        request.url = next
      }
    }
  }

  /// A URL as errors may name it: no user, no password, no query (a presigned URL's query is
  /// a credential).
  static func withoutQuery(_ url: URL) -> String {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
      return "(a URL)"
    }
    components.user = nil
    components.password = nil
    components.query = nil
    components.fragment = nil
    return components.string ?? "(a URL)"
  }

  private func sendOnce(_ request: HTTPRequest, limit: Int) -> Result<
    HTTPResponse, TransportFailure
  > {
    var urlRequest = URLRequest(url: request.url, timeoutInterval: policy.timeout)
    urlRequest.httpMethod = request.method
    urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
    // The bytes as stored: a decoded body would not match its announced length or its key.
    urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
    for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
    let state = TaskState(limit: limit, expectsBody: request.method != "HEAD")
    let task: URLSessionTask
    if let body = request.body {
      urlRequest.setValue(String(body.count), forHTTPHeaderField: "Content-Length")
      // An upload task reports the bytes it sends, which count as progress for the time-out.
      task = session.uploadTask(with: urlRequest, from: Data(body))
    } else {
      task = session.dataTask(with: urlRequest)
    }
    delegate.register(state, for: task)
    task.resume()
    // The session's time-out ends a request that gets no answer, but not one whose body stops
    // coming: this wait ends both once nothing arrived for `timeout`.
    while state.done.wait(timeout: .now() + min(0.1, policy.timeout / 4)) == .timedOut {
      if state.idle() > policy.timeout {
        task.cancel()
        delegate.unregister(task)
        return .failure(.timedOut(seconds: policy.timeout))
      }
    }
    delegate.unregister(task)
    return state.result(url: request.url, timeout: policy.timeout)
  }

  /// What one task has received, written by the session's delegate queue and read once the
  /// task completed.
  private final class TaskState: @unchecked Sendable {
    let limit: Int
    let expectsBody: Bool
    let done = DispatchSemaphore(value: 0)
    var response: HTTPURLResponse?
    var body: [UInt8] = []
    var overLimit: Int?
    var error: Error?
    /// The status of an answer that asked for credentials (401, 407).
    var challenged: Int?
    private let lock = NSLock()
    private var lastProgress = DispatchTime.now()

    init(limit: Int, expectsBody: Bool) {
      self.limit = limit
      self.expectsBody = expectsBody
    }

    /// Something arrived (the answer's head, some of its body).
    func progressed() {
      lock.withLock { lastProgress = .now() }
    }

    /// Seconds since anything arrived.
    func idle() -> TimeInterval {
      let last = lock.withLock { lastProgress }
      return Double(DispatchTime.now().uptimeNanoseconds - last.uptimeNanoseconds) / 1e9
    }

    /// Whether the answer is a success, whose body is the object: the limit and the length
    /// checks apply to it. Another answer's body is only read in part, for its error code.
    var isSuccess: Bool { (200..<300).contains(response?.statusCode ?? 0) }

    /// The announced length, or -1.
    var expectedLength: Int {
      guard let response, expectsBody,
        let text = response.value(forHTTPHeaderField: "Content-Length"),
        let length = Int(text.trimmingCharacters(in: .whitespaces))
      else { return -1 }
      return length
    }

    func result(url: URL, timeout: TimeInterval) -> Result<HTTPResponse, TransportFailure> {
      if let overLimit { return .failure(.tooLarge(size: overLimit)) }
      let expected = expectedLength
      if let challenged {
        // A 401 the session turned into a challenge: handed back as the answer it was.
        return .success(HTTPResponse(status: challenged, headers: [:], body: [], url: url))
      }
      if let error {
        if isSuccess, expected > 0, body.count < expected,
          (error as? URLError)?.code != .timedOut
        {
          return .failure(.truncated(received: body.count, expected: expected))
        }
        return .failure(Self.failure(error, timeout: timeout))
      }
      guard let response else { return .failure(.connection("no answer")) }
      if isSuccess, expected >= 0, body.count != expected, response.statusCode != 204 {
        return .failure(.truncated(received: body.count, expected: expected))
      }
      var headers: [String: String] = [:]
      for (name, value) in response.allHeaderFields {
        if let name = name as? String, let value = value as? String {
          headers[name.lowercased()] = value
        }
      }
      return .success(
        HTTPResponse(
          status: response.statusCode, headers: headers, body: body,
          url: response.url ?? url))
    }

    /// A session error as a failure, in words of this package: URLSession's own texts may
    /// name the URL, query included.
    private static func failure(_ error: Error, timeout: TimeInterval) -> TransportFailure {
      guard let error = error as? URLError else { return .connection("the request failed") }
      switch error.code {
      case .timedOut: return .timedOut(seconds: timeout)
      case .cannotConnectToHost: return .connection("the connection was refused")
      case .cannotFindHost, .dnsLookupFailed: return .connection("its host name is not known")
      case .networkConnectionLost: return .connection("the connection was lost")
      case .notConnectedToInternet: return .connection("there is no network")
      case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
        .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
        return .connection("the TLS connection failed (URLError \(error.code.rawValue))")
      default: return .connection("the request failed (URLError \(error.code.rawValue))")
      }
    }
  }

  private final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var states: [Int: TaskState] = [:]

    func register(_ state: TaskState, for task: URLSessionTask) {
      lock.withLock { states[task.taskIdentifier] = state }
    }

    func unregister(_ task: URLSessionTask) {
      _ = lock.withLock { states.removeValue(forKey: task.taskIdentifier) }
    }

    private func state(_ task: URLSessionTask) -> TaskState? {
      lock.withLock { states[task.taskIdentifier] }
    }

    /// How much of an answer that is not a success is kept (S3's error code is in it).
    static let errorBodyLimit = 64 << 10

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
      completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
      // Credentials travel as headers the store chose: a 401 ends the request, and `send`
      // hands it back as the answer (the session would otherwise wait for a credential).
      if let state = state(task) {
        state.progressed()
        state.challenged = (challenge.failureResponse as? HTTPURLResponse)?.statusCode ?? 401
      }
      completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
      completionHandler: @escaping (URLRequest?) -> Void
    ) {
      // HTTPClient.send follows redirects itself.
      completionHandler(nil)
    }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
      guard let state = state(dataTask) else { return completionHandler(.cancel) }
      state.progressed()
      state.response = response as? HTTPURLResponse
      let expected = state.expectedLength
      if expected > state.limit, state.isSuccess {
        state.overLimit = expected
        return completionHandler(.cancel)
      }
      if expected > 0 { state.body.reserveCapacity(min(expected, state.limit)) }
      completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      guard let state = state(dataTask), state.overLimit == nil else { return }
      state.progressed()
      guard state.isSuccess else {
        state.body.append(contentsOf: data.prefix(max(0, Self.errorBodyLimit - state.body.count)))
        return
      }
      guard state.body.count + data.count <= state.limit else {
        state.overLimit = state.body.count + data.count
        dataTask.cancel()
        return
      }
      state.body.append(contentsOf: data)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
      totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
      state(task)?.progressed()
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?
    ) {
      guard let state = state(task) else { return }
      if state.response == nil { state.response = task.response as? HTTPURLResponse }
      state.error = state.overLimit == nil ? error : nil
      state.done.signal()
    }
  }
}
