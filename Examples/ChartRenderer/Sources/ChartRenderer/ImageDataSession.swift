import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one part of `URLSession` that `RemoteImageClient` uses, so tests can hand it a session
/// that never touches the network.
///
/// It is the completion-handler `dataTask` rather than `data(for:)`, because the client shares
/// one request between several waiters and must cancel the request itself (not the calling
/// task) when the last waiter goes away.
public protocol ImageDataSession: Sendable {
  /// Creates a suspended task that fetches `request` and then calls `completionHandler` once,
  /// also after `cancel()` (with an error).
  /// - Parameters:
  ///   - request: The request.
  ///   - completionHandler: Receives the body, the response and the error, on any thread.
  /// - Returns: The task; nothing is fetched until `resume()`.
  func imageDataTask(
    with request: URLRequest,
    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  ) -> any ImageDataTask
}

/// A request `ImageDataSession` created: `URLSessionDataTask`, or a test double.
public protocol ImageDataTask: Sendable {
  /// Starts the request.
  func resume()
  /// Stops the request; the completion handler still runs, with an error.
  func cancel()
}

extension URLSessionDataTask: ImageDataTask {}

extension URLSession: ImageDataSession {
  /// Calls `dataTask(with:completionHandler:)`.
  public func imageDataTask(
    with request: URLRequest,
    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  ) -> any ImageDataTask {
    dataTask(with: request, completionHandler: completionHandler)
  }
}
