import Foundation
import ReferenceImageCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Downloads PNG images over HTTP for renderers: decodes them with `PNGDecoder`, keeps the
/// decoded images in memory by URL, and shares one request between everyone waiting for a URL.
///
/// A request stops when nobody wants it any more: cancelling the task that awaits
/// `image(for:)`, or calling `cancel()` on the handle `load(_:on:completion:)` returns, removes
/// that waiter, and when it was the last one the `URLSessionTask` is cancelled. Results arrive
/// on the caller's actor (`image(for:)` is `async`: the caller resumes on its own executor) or
/// on the dispatch queue given to `load(_:on:completion:)`.
///
/// Renderers take the client as an `ImageLoader` (`imageLoader`): they draw synchronously from
/// what is cached, and the app awaits `image(for:)` for what is not, then renders again.
public final class RemoteImageClient: @unchecked Sendable {
  /// What a waiter receives.
  public typealias Completion = @Sendable (Result<RGBAImage, any Error>) -> Void

  /// A waiter registered with `load(_:on:completion:)`; cancel it when its consumer goes away.
  public struct Handle: Sendable {
    fileprivate let client: RemoteImageClient
    fileprivate let url: URL
    fileprivate let id: Int

    /// Stops waiting: the completion receives `CancellationError` (unless it already ran), and
    /// the request is cancelled when no other waiter wants the URL.
    public func cancel() {
      client.cancelWaiter(id, for: url)
    }
  }

  private struct InFlight {
    let generation: Int
    let task: any ImageDataTask
    var waiters: [Int: Completion]
  }

  private let session: any ImageDataSession
  private let decoder: PNGDecoder
  /// The most bytes of decoded pixels the cache keeps; the oldest images go first.
  public let maximumCachedBytes: Int

  private let lock = NSLock()
  private var inFlight: [URL: InFlight] = [:]
  private var cache: [URL: RGBAImage] = [:]
  private var cacheOrder: [URL] = []
  private var cachedBytes = 0
  private var nextID = 0
  /// Waiters of `image(for:)` between taking an id and registering; a cancellation arriving in
  /// that window moves the id to `cancelledBeforeRegistration`.
  private var unregistered: Set<Int> = []
  private var cancelledBeforeRegistration: Set<Int> = []

  /// Creates a client.
  /// - Parameters:
  ///   - session: Where requests go; `URLSession.shared` unless given.
  ///   - decoder: Decodes the downloaded PNGs, with its size limits.
  ///   - maximumCachedBytes: How many bytes of decoded pixels to keep; 64 MiB by default.
  public init(
    session: any ImageDataSession = URLSession.shared, decoder: PNGDecoder = PNGDecoder(),
    maximumCachedBytes: Int = 64 << 20
  ) {
    self.session = session
    self.decoder = decoder
    self.maximumCachedBytes = maximumCachedBytes
  }

  /// The client as an `ImageLoader`: `cached` is `cachedImage(for:)`, `load` is `image(for:)`.
  public var imageLoader: ImageLoader {
    ImageLoader(
      load: { url in try await self.image(for: url) },
      cached: { url in self.cachedImage(for: url) })
  }

  /// The decoded image for `url` if it was downloaded and is still cached; never waits.
  /// - Parameter url: The image's URL.
  /// - Returns: The image, or `nil`.
  public func cachedImage(for url: URL) -> RGBAImage? {
    locked { cache[url] }
  }

  /// Forgets every cached image; requests in flight are not affected.
  public func removeAllCachedImages() {
    locked {
      cache = [:]
      cacheOrder = []
      cachedBytes = 0
    }
  }

  /// The image at `url`: from the cache, else from the request already in flight for it, else
  /// from a new request.
  /// - Parameter url: The image's URL.
  /// - Returns: The decoded image.
  /// - Throws: `RemoteImageError` naming the URL, or `CancellationError` when the calling task
  ///   was cancelled (which cancels the request if no one else waits for it).
  public func image(for url: URL) async throws -> RGBAImage {
    if let image = cachedImage(for: url) { return image }
    let id = locked { () -> Int in
      nextID += 1
      unregistered.insert(nextID)
      return nextID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        register(id, for: url) { continuation.resume(with: $0) }
      }
    } onCancel: {
      cancelWaiter(id, for: url)
    }
  }

  /// Loads the image at `url` and calls `completion` on `queue` with it or with the error.
  /// - Parameters:
  ///   - url: The image's URL.
  ///   - queue: Where `completion` runs, always asynchronously, even for a cached image.
  ///   - completion: Receives the image, a `RemoteImageError`, or `CancellationError` after the
  ///     handle was cancelled; exactly once.
  /// - Returns: A handle that cancels this waiter.
  @discardableResult
  public func load(
    _ url: URL, on queue: DispatchQueue, completion: @escaping Completion
  ) -> Handle {
    let id = locked { () -> Int in
      nextID += 1
      unregistered.insert(nextID)
      return nextID
    }
    register(id, for: url) { result in queue.async { completion(result) } }
    return Handle(client: self, url: url, id: id)
  }

  // MARK: Waiters and requests

  private func register(_ id: Int, for url: URL, deliver: @escaping Completion) {
    enum Step {
      case deliver(Result<RGBAImage, any Error>)
      case wait
      case start(any ImageDataTask)
    }
    let step = locked { () -> Step in
      unregistered.remove(id)
      if cancelledBeforeRegistration.remove(id) != nil {
        return .deliver(.failure(CancellationError()))
      }
      if let image = cache[url] { return .deliver(.success(image)) }
      if inFlight[url] != nil {
        inFlight[url]?.waiters[id] = deliver
        return .wait
      }
      nextID += 1
      let generation = nextID
      // Created under the lock so concurrent first waiters share it; resumed outside it, since
      // a session may complete (and take the lock) inside `resume()`.
      let task = session.imageDataTask(with: URLRequest(url: url)) { data, response, error in
        self.finish(url, generation: generation, data: data, response: response, error: error)
      }
      inFlight[url] = InFlight(generation: generation, task: task, waiters: [id: deliver])
      return .start(task)
    }
    switch step {
    case .deliver(let result): deliver(result)
    case .wait: break
    case .start(let task): task.resume()
    }
  }

  fileprivate func cancelWaiter(_ id: Int, for url: URL) {
    let (waiter, abandoned) = locked { () -> (Completion?, (any ImageDataTask)?) in
      if unregistered.remove(id) != nil {
        cancelledBeforeRegistration.insert(id)
        return (nil, nil)
      }
      guard var entry = inFlight[url], let waiter = entry.waiters.removeValue(forKey: id) else {
        return (nil, nil)  // already delivered
      }
      if entry.waiters.isEmpty {
        inFlight[url] = nil
        return (waiter, entry.task)
      }
      inFlight[url] = entry
      return (waiter, nil)
    }
    // The request is cancelled before the waiter hears about it, so a waiter that sees its
    // `CancellationError` can rely on the request being stopped.
    abandoned?.cancel()
    waiter?(.failure(CancellationError()))
  }

  private func finish(
    _ url: URL, generation: Int, data: Data?, response: URLResponse?, error: (any Error)?
  ) {
    let isCurrent = locked { inFlight[url]?.generation == generation }
    // A request whose waiters all left was cancelled and removed; its late answer is dropped.
    guard isCurrent else { return }
    let result = decode(url, data: data, response: response, error: error)
    let waiters = locked { () -> [Completion] in
      guard let entry = inFlight[url], entry.generation == generation else { return [] }
      inFlight[url] = nil
      if case .success(let image) = result { insertIntoCache(image, for: url) }
      return entry.waiters.sorted { $0.key < $1.key }.map(\.value)
    }
    for waiter in waiters { waiter(result) }
  }

  private func decode(
    _ url: URL, data: Data?, response: URLResponse?, error: (any Error)?
  ) -> Result<RGBAImage, any Error> {
    if let error { return .failure(RemoteImageError.transport(url: url, error: error)) }
    if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
      return .failure(RemoteImageError.httpStatus(url: url, status: http.statusCode))
    }
    do {
      return .success(try decoder.decode(data ?? Data()))
    } catch {
      return .failure(RemoteImageError.undecodable(url: url, error: error))
    }
  }

  /// Adds an image, evicting the oldest ones past `maximumCachedBytes`; call under the lock.
  private func insertIntoCache(_ image: RGBAImage, for url: URL) {
    let bytes = image.pixels.count
    guard bytes <= maximumCachedBytes, cache[url] == nil else { return }
    cache[url] = image
    cacheOrder.append(url)
    cachedBytes += bytes
    while cachedBytes > maximumCachedBytes, !cacheOrder.isEmpty {
      let oldest = cacheOrder.removeFirst()
      if let evicted = cache.removeValue(forKey: oldest) { cachedBytes -= evicted.pixels.count }
    }
  }

  private func locked<Value>(_ body: () throws -> Value) rethrows -> Value {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }
}
