import Foundation
import ReferenceImageCore

/// What an assertion found at the reference path, compared with the rendered image: the input
/// of `ImageDecision` besides the mode.
enum ReferenceState: Equatable {
  /// No file exists at the reference path.
  case missing
  /// A file exists but is not a usable reference: not a PNG, truncated, unreadable.
  case unreadable(ReferenceImageError)
  /// The file is a Git LFS pointer: the real reference was never fetched, so it can be neither
  /// compared nor safely replaced.
  case gitLFSPointer(path: String)
  /// The reference holds the rendered pixels, known from a trusted digest of its pixels without
  /// decoding it.
  case matchesByDigest
  /// The reference was decoded and compared with the rendered image.
  case compared(reference: RGBAImage, result: ReferenceImageCore.ComparisonResult)

  /// Reads the reference at `location` and compares `image` with it.
  /// - Parameters:
  ///   - location: Where the reference lives.
  ///   - image: The rendered image.
  ///   - comparison: How pixels are compared.
  ///   - bound: How many differing pixels are allowed.
  ///   - pixelHash: The render's pixel hash, shared with the rest of the assertion.
  ///   - stores: Where a pointer's PNG is fetched from, when the render differs from it.
  static func read(
    at location: ReferenceLocation, comparing image: RGBAImage, by comparison: ImageComparison,
    bound: DifferenceBound, pixelHash: RenderedPixelHash? = nil, stores: PackageStores = .shared
  ) -> ReferenceState {
    let file: [UInt8]
    let pixelHash = pixelHash ?? RenderedPixelHash(image)
    do {
      switch try ReferenceFile.read(at: location) {
      case nil:
        return .missing
      case .png(let bytes):
        file = bytes
      case .pointer(let pointer):
        // A pointer says which pixels its reference holds: a render that has them passes
        // without the object, the store or the network.
        if pixelHash.isNamed(by: pointer.pixels) { return .matchesByDigest }
        file = try ReferenceFile.pointer(pointer).pngBytes(at: location, stores: stores)
      }
    } catch {
      return .unreadable(error)
    }
    if GitLFSPointer.isPointer(file) { return .gitLFSPointer(path: location.url.path) }
    // The usual verify run renders what the reference holds: its trusted pixel digest says so
    // without decoding it, at the cost of one fast hash of the render. Any other answer (no
    // digest, a stale one, other pixels) decodes. So does a version 1 digest, which only
    // SHA-256 can check: the fast reader decodes and compares in under a third of that time.
    if let digest = PNGPixelDigest.read(fromPNG: file), digest.pixelXXH3 != nil,
      pixelHash.isNamed(by: digest)
    {
      return .matchesByDigest
    }
    do {
      let reference = try ReferenceImages.decodeReference(file, at: location)
      let result = comparison.compare(image, to: reference, bound: bound)
      // A passing comparison's decision drops the reference once made, so the next
      // assertion's decode can write into its memory.
      if result.passed { PNGDecoder.Recycler.shared.recycle(copy reference) }
      return .compared(reference: reference, result: result)
    } catch {
      return .unreadable(error)
    }
  }
}
