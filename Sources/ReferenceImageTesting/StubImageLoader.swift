import Foundation
import ReferenceImageCore

/// An `ImageLoader` for render tests: every image comes from a table the test fills, instantly
/// and without the network, so references never depend on a server.
///
/// Stub each URL with a distinct solid colour: the colour shows in the reference exactly where
/// the renderer put that image (a swapped avatar and thumbnail is visible at a glance), and
/// solid colours keep reference PNGs tiny. A URL the test did not stub is a test failure that
/// names the URL; the loader still returns an image in `placeholderColor`, so the render
/// completes and the other assertions still run.
///
/// ```swift
/// func testProfileCard() {
///   let images = StubImageLoader()
///   images.stub(avatarURL, color: RGBAColor(red: 239, green: 68, blue: 68))
///   images.stub(thumbnailURL, color: RGBAColor(red: 59, green: 130, blue: 246))
///   let card = ProfileCard(name: "Ada", avatarURL: avatarURL, thumbnailURL: thumbnailURL)
///   assertImage(card.render(images: images.loader()), named: "ada")
/// }
/// ```
///
/// Failures go to Swift Testing (`Issue.record`) when a Swift Testing test is running and to
/// `XCTFail` otherwise, pointing at the line that called `loader()` (or created the stub, for
/// lookups through `image(for:)`). Each un-stubbed URL fails once per stub. Thread-safe.
public final class StubImageLoader: @unchecked Sendable {
  /// The colour of the image returned for a URL that was not stubbed: opaque magenta
  /// (`#FF00FF`), the traditional "missing texture" colour, which no stub should use.
  public static let placeholderColor = RGBAColor(red: 255, green: 0, blue: 255)

  /// An un-stubbed lookup, as handed to a failure reporter.
  public struct Failure: Sendable {
    /// The URL nobody stubbed.
    public let url: URL
    /// The sentence a test failure shows: the URL and how to stub it.
    public let message: String
    /// The file (`#fileID`) of the call the failure points at.
    public let fileID: String
    /// The file (`#filePath`) of the call the failure points at.
    public let filePath: StaticString
    /// The line of the call the failure points at.
    public let line: UInt
    /// The column of the call the failure points at.
    public let column: UInt
  }

  private let lock = NSLock()
  private var images: [URL: RGBAImage] = [:]
  private var reported: Set<URL> = []
  private var lookups: [URL] = []
  private let report: @Sendable (Failure) -> Void
  private let location: SourceSite

  /// Creates an empty stub that reports un-stubbed URLs to the running test.
  /// - Parameters:
  ///   - fileID: Where lookups through `image(for:)` report failures; the caller's by default.
  ///   - filePath: The same, as a file path.
  ///   - line: The same line.
  ///   - column: The same column.
  public convenience init(
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      reportingTo: { failure in
        TestContext(
          fileID: failure.fileID, filePath: failure.filePath, line: failure.line,
          column: failure.column
        ).fail(failure.message)
      }, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Creates an empty stub that hands un-stubbed lookups to `report` instead of failing the
  /// running test; for testing code that is meant to fail, or for logging.
  /// - Parameters:
  ///   - report: Called once per un-stubbed URL, on the thread that looked it up.
  ///   - fileID: Where lookups through `image(for:)` point; the caller's by default.
  ///   - filePath: The same, as a file path.
  ///   - line: The same line.
  ///   - column: The same column.
  public init(
    reportingTo report: @escaping @Sendable (Failure) -> Void,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    self.report = report
    location = SourceSite(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Answers `url` with a solid colour.
  /// - Parameters:
  ///   - url: The URL the renderer will ask for.
  ///   - color: The colour; pick one per URL, and never `placeholderColor`.
  ///   - width: The image width; 1 by default, since renderers scale images to their slot.
  ///   - height: The image height; 1 by default.
  public func stub(_ url: URL, color: RGBAColor, width: Int = 1, height: Int = 1) {
    // A size that RGBAImage refuses is a mistake in the test itself: stop at once.
    guard let image = try? RGBAImage(width: width, height: height, color: color) else {
      preconditionFailure("StubImageLoader: invalid stub size \(width) x \(height) for \(url)")
    }
    stub(url, image: image)
  }

  /// Answers `url` with an image.
  /// - Parameters:
  ///   - url: The URL the renderer will ask for.
  ///   - image: The image to return.
  public func stub(_ url: URL, image: RGBAImage) {
    locked { images[url] = image }
  }

  /// The URLs looked up so far, in order, stubbed or not; for asserting what a renderer asked.
  public var requestedURLs: [URL] { locked { lookups } }

  /// The stubbed image for `url`; for an un-stubbed URL, reports a failure at the stub's
  /// creation site (once per URL) and returns a 1 × 1 image in `placeholderColor`.
  /// - Parameter url: The URL to look up.
  /// - Returns: The stubbed image or the placeholder.
  public func image(for url: URL) -> RGBAImage {
    image(for: url, at: location)
  }

  /// An `ImageLoader` answering from this stub: `cached` and `load` both return at once, never
  /// `nil` and never throwing. Un-stubbed URLs fail the test at this call's line.
  /// - Parameters:
  ///   - fileID: Where failures point; the caller's by default.
  ///   - filePath: The same, as a file path.
  ///   - line: The same line.
  ///   - column: The same column.
  /// - Returns: The loader to hand to the renderer.
  public func loader(
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) -> ImageLoader {
    let site = SourceSite(fileID: fileID, filePath: filePath, line: line, column: column)
    return ImageLoader(
      load: { url in self.image(for: url, at: site) },
      cached: { url in self.image(for: url, at: site) })
  }

  private func image(for url: URL, at site: SourceSite) -> RGBAImage {
    let (image, isFirstMiss) = locked { () -> (RGBAImage?, Bool) in
      lookups.append(url)
      if let image = images[url] { return (image, false) }
      return (nil, reported.insert(url).inserted)
    }
    if let image { return image }
    if isFirstMiss {
      report(
        Failure(
          url: url, message: Self.message(for: url), fileID: site.fileID,
          filePath: site.filePath, line: site.line, column: site.column))
    }
    return Self.placeholder
  }

  static func message(for url: URL) -> String {
    "no stubbed image for \(url.absoluteString): the render shows the placeholder colour "
      + "(magenta, #FF00FF) there; stub it with "
      + "stub(URL(string: \"\(url.absoluteString)\")!, color: ...)"
  }

  private static let placeholder: RGBAImage = {
    guard let image = try? RGBAImage(width: 1, height: 1, color: placeholderColor) else {
      preconditionFailure("a 1 x 1 image is always valid")
    }
    return image
  }()

  private func locked<Value>(_ body: () throws -> Value) rethrows -> Value {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }
}

/// A call site captured with `#fileID`, `#filePath`, `#line` and `#column`.
private struct SourceSite: Sendable {
  let fileID: String
  let filePath: StaticString
  let line: UInt
  let column: UInt
}
