import ReferenceImageCore

/// The rendered image's pixel SHA-256, computed at most once per assertion.
///
/// Comparing the render with a reference's pixel digest and encoding the render both need it:
/// in a generation run whose image changed, and in a verify run that keeps a failed render, the
/// pixels were hashed twice, about 11 ms of CPU for a 4 Mpx image (`openssl speed -evp sha256`:
/// 1.49 GB/s here). One assertion runs on one thread, so the memo needs no lock; only the
/// computed bytes travel to the encoding pool.
final class RenderedPixelHash {
  let image: RGBAImage
  /// The hash, once something asked for it.
  private(set) var computed: [UInt8]?

  init(_ image: RGBAImage) {
    self.image = image
  }

  /// The 32-byte SHA-256 of the pixels.
  var bytes: [UInt8] {
    if let computed { return computed }
    let digest = image.pixels.withUnsafeBytes(SHA256.digest)
    computed = digest
    return digest
  }

  /// Whether `digest` names exactly these pixels; the size is checked first, so a render of
  /// another size is never hashed.
  func isNamed(by digest: PNGPixelDigest) -> Bool {
    digest.width == image.width && digest.height == image.height
      && digest.pixelSHA256 == SHA256.hexString(bytes)
  }
}
