import Foundation

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

/// Blocking HTTP for the network stores, as the `ObjectStore` protocol asks, each hop one
/// `CurlTransfer`.
///
/// Redirects are followed here, not by the transport: `send` counts them, catches a loop, and
/// asks `headers(for:)` again for each URL, which gives credentials only to the host they are
/// bound to.
final class HTTPClient: Sendable {
  let policy: NetworkPolicy

  init(policy: NetworkPolicy) {
    self.policy = policy
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
    CurlTransfer.perform(request, limit: limit, timeout: policy.timeout)
  }
}
