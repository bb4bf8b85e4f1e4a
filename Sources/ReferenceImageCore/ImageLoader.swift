import Foundation

/// Where a renderer gets the images it draws from URLs: a struct of two closures, so production
/// code passes a network client and tests pass a stub that answers instantly and never touches
/// the network.
///
/// Renderers draw synchronously (a render test calls `render()` and compares the pixels), so
/// they look images up with `cached`, which never waits: it returns what is already at hand, or
/// `nil`, and the renderer draws its placeholder in that slot. `load` is for the code around the
/// renderer: an app awaits `load` for the URLs a view needs (or renders once with placeholders,
/// then again when `load` returns), and the next render finds the images through `cached`. A
/// single asynchronous closure would force every renderer to become `async`; a single
/// synchronous one would force production code to block a thread on the network.
///
/// ```swift
/// struct ProfileCard {
///   var avatarURL: URL
///   func render(images: ImageLoader) -> RGBAImage {
///     let avatar = images.cached(avatarURL)  // nil: draw a grey circle instead
///     // …
///   }
/// }
/// ```
public struct ImageLoader: Sendable {
  /// Fetches the image at a URL, waiting for the network or disk when needed.
  public var load: @Sendable (URL) async throws -> RGBAImage
  /// Returns the image at a URL when it is available now, without waiting; `nil` otherwise.
  public var cached: @Sendable (URL) -> RGBAImage?

  /// Creates a loader from its two operations.
  /// - Parameters:
  ///   - load: Fetches an image, waiting when needed; throws when it cannot.
  ///   - cached: Returns an image that is available now, or `nil`; must not block.
  public init(
    load: @escaping @Sendable (URL) async throws -> RGBAImage,
    cached: @escaping @Sendable (URL) -> RGBAImage?
  ) {
    self.load = load
    self.cached = cached
  }

  /// A loader that has nothing: `cached` returns `nil` and `load` throws
  /// `ImageLoaderError.unavailable`. Renderers draw their placeholders with it.
  public static let none = ImageLoader(
    load: { url in throw ImageLoaderError.unavailable(url) },
    cached: { _ in nil })

  /// A loader answering from a fixed table, for previews and tests that need no failure
  /// reporting (`StubImageLoader` in `ReferenceImageTesting` reports un-stubbed URLs).
  /// - Parameter images: The image for each URL; other URLs behave as in `.none`.
  /// - Returns: A loader whose `load` and `cached` both return the table's image.
  public static func constant(_ images: [URL: RGBAImage]) -> ImageLoader {
    ImageLoader(
      load: { url in
        guard let image = images[url] else { throw ImageLoaderError.unavailable(url) }
        return image
      },
      cached: { url in images[url] })
  }
}

/// Why an `ImageLoader` produced no image.
public enum ImageLoaderError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The loader has no image for the URL.
  case unavailable(URL)

  public var description: String {
    switch self {
    case .unavailable(let url): return "no image for \(url.absoluteString)"
    }
  }
}
