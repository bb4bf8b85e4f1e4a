import Foundation
import ReferenceImageCore

/// A reference that already holds the rendered pixels, known from its trusted pixel digest
/// without decoding it: what a generation run records in the manifest instead of encoding and
/// archiving the image again.
struct UnchangedReference: Equatable {
  /// SHA-256 of the reference file's bytes, so `merge-refs` can tell whether the file is still
  /// the one this run compared with.
  var pngSHA256: SHA256Digest
  /// SHA-256 of the RGBA8 pixels the image and the reference share.
  var pixelSHA256: SHA256Digest

  /// Reads the reference at `location` as verify reads it (the pixel digest is trusted only
  /// when its IDAT digest matches the file), never decoding it.
  /// - Parameters:
  ///   - location: Where the reference lives.
  ///   - image: The rendered image.
  ///   - pixelHash: The render's pixel hash, shared with the rest of the assertion.
  /// - Returns: The reference when its trusted digest names exactly the image's pixels; nil
  ///   when there is no reference, it cannot be read, it has no trusted digest (older files, a
  ///   Git LFS pointer) or it holds other pixels: then the image is encoded as before.
  static func read(
    at location: ReferenceLocation, matching image: RGBAImage,
    pixelHash: RenderedPixelHash? = nil
  ) -> UnchangedReference? {
    let pixelHash = pixelHash ?? RenderedPixelHash(image)
    let file: [UInt8]
    switch try? ReferenceFile.read(at: location) {
    case .png(let bytes)?:
      file = bytes
    case .pointer(let pointer)?:
      // The object's key is the SHA-256 of the PNG it names: what the merge checks the
      // pointer still names.
      guard pixelHash.isNamed(by: pointer.pixels) else { return nil }
      return UnchangedReference(
        pngSHA256: pointer.object.digest, pixelSHA256: pointer.pixels.pixelSHA256)
    case nil:
      return nil
    }
    // A render with other pixels is archived: its SHA-256 is left to the encoder, which
    // computes it on the pool beside the bands, not on the test's thread.
    guard let digest = PNGPixelDigest.read(fromPNG: file), pixelHash.isNamed(by: digest) else {
      return nil
    }
    // The SHA-256 of the pixels comes from the chunk, which the seal ties to the fast digest
    // that just matched: the render is not hashed with SHA-256.
    return UnchangedReference(pngSHA256: SHA256Digest(of: file), pixelSHA256: digest.pixelSHA256)
  }
}
