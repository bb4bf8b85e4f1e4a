import ReferenceImageCore

/// The rendered image's pixel hashes, each computed at most once per assertion.
///
/// Comparing the render with a reference's pixel digest and encoding the render both need a
/// hash: the digest check the fast XXH3-128 (about 0.07 ms for 800 × 600 here), the encoder and
/// the checks against version 1 digests the SHA-256 (about 1 ms). The SHA-256 is computed at
/// most once: by a check that needs it, whose bytes the encoder then takes, or else by the
/// encoder on the pool, never on the test's thread only to be handed over. One assertion runs
/// on one thread, so the memos need no lock; only the computed bytes travel to the encoding
/// pool.
final class RenderedPixelHash {
  let image: RGBAImage
  /// The SHA-256, once something asked for it.
  private(set) var computed: [UInt8]?
  private var fast: XXH3Digest?

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

  /// The XXH3-128 of the pixels.
  var xxh3: XXH3Digest {
    if let fast { return fast }
    let digest = XXH3Digest(of: image.pixels)
    fast = digest
    return digest
  }

  /// Whether `digest` names exactly these pixels; the size is checked first, so a render of
  /// another size is never hashed. A version 2 digest is checked with its XXH3-128, a version 1
  /// digest with its SHA-256.
  func isNamed(by digest: PNGPixelDigest) -> Bool {
    guard digest.width == image.width && digest.height == image.height else { return false }
    if let pixelXXH3 = digest.pixelXXH3 { return pixelXXH3 == xxh3 }
    return digest.pixelSHA256 == SHA256Digest(rawBytes: bytes)
  }
}
