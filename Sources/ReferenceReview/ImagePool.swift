import Foundation
import ReferenceImageCore

/// Images whose pixels a card is done with, kept for the next card's decoding
/// (`PNGDecoder.decode(_:reusing:)`): a report decodes thousands of images of a few sizes, and
/// writing the same pages again costs less than having fresh ones faulted in for each. Cards
/// are made on every core, each taking and giving back, so the pool holds a couple of images
/// per core.
final class ImagePool: @unchecked Sendable {
  private let lock = NSLock()
  private var images: [RGBAImage] = []

  /// An image to decode into, if one was given back.
  func take() -> RGBAImage? {
    lock.lock()
    defer { lock.unlock() }
    return images.popLast()
  }

  /// Keeps an image whose pixels are no longer needed.
  func recycle(_ image: consuming RGBAImage) {
    lock.lock()
    defer { lock.unlock() }
    images.append(image)
  }

  /// PNG bytes decoded into an image taken from the pool; nil when they do not decode.
  func decode(_ bytes: [UInt8]) -> RGBAImage? {
    guard let recycled = take() else { return try? PNGDecoder().decode(bytes) }
    return try? PNGDecoder().decode(bytes, reusing: consume recycled)
  }
}
