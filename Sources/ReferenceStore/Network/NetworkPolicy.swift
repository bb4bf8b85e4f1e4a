import Foundation

/// How a network store waits, retries and follows redirects.
public struct NetworkPolicy: Sendable, Equatable {
  /// Seconds a request may go without progress (no byte sent or received) before it fails as
  /// timed out.
  public var timeout: TimeInterval
  /// How many times a request is sent before a 5xx answer, a lost connection or a time-out
  /// fails it: 3 is one first try and two retries.
  public var tries: Int
  /// Seconds before the first retry; each later one waits twice as long as the one before.
  public var backoff: TimeInterval
  /// How many redirects a request follows before it fails; a redirect back to a URL already
  /// visited fails at once as a loop.
  public var redirects: Int

  /// - Parameters:
  ///   - timeout: Seconds without progress before a request times out.
  ///   - tries: Sends of one request, the first included (at least 1).
  ///   - backoff: Seconds before the first retry, doubled for each next one.
  ///   - redirects: Redirects followed before a request fails.
  public init(
    timeout: TimeInterval = 30, tries: Int = 3, backoff: TimeInterval = 0.5, redirects: Int = 5
  ) {
    self.timeout = timeout
    self.tries = max(1, tries)
    self.backoff = backoff
    self.redirects = max(0, redirects)
  }
}
