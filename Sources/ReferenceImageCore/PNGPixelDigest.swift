/// The pixel digest that `PNGEncoder` stores in every PNG it writes: a private ancillary chunk
/// `riDG` that says which RGBA8 pixels the file decodes to, so a caller can learn a reference's
/// pixel hash with one pass over the chunks instead of a decode.
///
/// Version 2, what the package writes, holds the SHA-256 of the decoded RGBA8 pixels (row-major,
/// no padding; the archive manifest's `pixelSHA256`), their XXH3-128 (the fast check a verify
/// run makes: hashing a render with XXH3 costs a fifteenth of SHA-256), and a seal: the XXH3-128
/// of every chunk that decides the pixels (IHDR, PLTE, tRNS and the image data) and of the two
/// pixel digests. The chunk is believed only when the seal matches the file: a tool that
/// rewrites the image data or the palette while keeping the chunk leaves a stale pixel hash
/// behind, and a chunk whose fast digest was changed apart from its SHA-256 no longer agrees
/// with itself; either mismatch sends the caller back to decoding. Version 1, written before,
/// holds the SHA-256 of the image data and of the pixels, and is still read. The type's fourth
/// letter is upper case (unsafe to copy), so editors that follow the PNG rules drop the chunk
/// when they change the image.
///
/// The chunk guards against stale and damaged files, not against forgery: whoever can write a
/// reference can write a matching chunk, as they could write the pixels.
public struct PNGPixelDigest: Sendable, Hashable {
  /// The width in IHDR.
  public var width: Int
  /// The height in IHDR.
  public var height: Int
  /// The SHA-256 of the decoded RGBA8 pixels; the same value as the archive manifest's
  /// `pixelSHA256`, and as `RGBAImage.pixelSHA256` in hex.
  public var pixelSHA256: SHA256Digest
  /// The XXH3-128 of the decoded RGBA8 pixels, from a version 2 chunk; nil for version 1.
  public var pixelXXH3: XXH3Digest?

  /// Creates a digest.
  /// - Parameters:
  ///   - width: The width in IHDR.
  ///   - height: The height in IHDR.
  ///   - pixelSHA256: The pixels' SHA-256.
  ///   - pixelXXH3: The pixels' XXH3-128, when known.
  public init(width: Int, height: Int, pixelSHA256: SHA256Digest, pixelXXH3: XXH3Digest? = nil) {
    self.width = width
    self.height = height
    self.pixelSHA256 = pixelSHA256
    self.pixelXXH3 = pixelXXH3
  }

  /// The chunk's type: ancillary, private, reserved bit clear, unsafe to copy.
  public static let chunkType = "riDG"
  /// The layout version this package writes: one byte `2`, the 16-byte seal, the 16-byte
  /// XXH3-128 of the pixels, then the 32-byte SHA-256 of the pixels (65 bytes of chunk data).
  /// Version 1 (one byte `1`, the 32-byte SHA-256 of the image data, the 32-byte SHA-256 of
  /// the pixels) is read too.
  public static let formatVersion: UInt8 = 2

  /// Reads the digest of a PNG file without decoding it.
  /// - Parameter png: The PNG file's bytes.
  /// - Returns: The digest, or `nil` when the file has no `riDG` chunk, has more than one, has
  ///   one of an unknown version or with a bad CRC, is not a well-formed chunk sequence, or when
  ///   the chunk's seal (version 2) or image-data digest (version 1) does not match the file.
  ///   `nil` means "decode it".
  public static func read(fromPNG png: [UInt8]) -> PNGPixelDigest? {
    png.withUnsafeBytes(read(fromPNG:))
  }

  /// Reads the digest of a PNG file without decoding it; see `read(fromPNG:)` for `[UInt8]`.
  /// - Parameter png: The PNG file's bytes.
  /// - Returns: The digest, or `nil` when there is no trustworthy one.
  public static func read(fromPNG png: UnsafeRawBufferPointer) -> PNGPixelDigest? {
    guard let chunks = PNGChunks(png), chunks.chunks.contains(where: { $0.type == PNGChunks.idat }),
      let data = digestData(in: chunks, of: png)
    else { return nil }
    let size = chunks.size(in: png)
    let sha256 = SHA256Digest(rawBytes: Array(data[33..<65]))
    switch data[0] {
    case 1:
      guard Array(data[1..<33]) == idatSHA256(of: chunks, in: png) else { return nil }
      return PNGPixelDigest(width: size.width, height: size.height, pixelSHA256: sha256)
    case 2:
      guard XXH3Digest(canonicalBytes: data[1..<17]) == seal(of: chunks, in: png, sealing: data)
      else { return nil }
      return PNGPixelDigest(
        width: size.width, height: size.height, pixelSHA256: sha256,
        pixelXXH3: XXH3Digest(canonicalBytes: data[17..<33]))
    default:
      return nil
    }
  }

  /// Whether an image has exactly the pixels this digest describes: the same size and the
  /// same pixel hash (which this call computes: XXH3-128 when the chunk has it, else SHA-256).
  /// - Parameter image: The image to check, typically a freshly rendered one.
  /// - Returns: `true` when the file's decoded pixels would equal `image`'s.
  public func matches(_ image: RGBAImage) -> Bool {
    guard image.width == width && image.height == height else { return false }
    if let pixelXXH3 { return XXH3Digest(of: image.pixels) == pixelXXH3 }
    return SHA256Digest(of: image.pixels) == pixelSHA256
  }

  /// Two digests are equal when they name the same pixels: the XXH3-128 is derived from the
  /// same pixels, and a version 1 chunk simply lacks it.
  public static func == (lhs: PNGPixelDigest, rhs: PNGPixelDigest) -> Bool {
    lhs.width == rhs.width && lhs.height == rhs.height && lhs.pixelSHA256 == rhs.pixelSHA256
  }

  /// Hashes what `==` compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(width)
    hasher.combine(height)
    hasher.combine(pixelSHA256)
  }

  /// A PNG with a fresh version 2 digest chunk for `image`'s pixels, placed just before the
  /// first IDAT; any earlier `riDG` chunk is dropped. Every other byte, IDAT included, is kept.
  /// - Parameters:
  ///   - pixelSHA256: The SHA-256 of `image`'s pixels.
  ///   - image: The pixels `png` decodes to; their XXH3-128 is computed here.
  ///   - png: A PNG file.
  /// - Returns: The new file, or `nil` when `png` is not a well-formed chunk sequence with
  ///   image data.
  package static func inserting(
    pixelSHA256: SHA256Digest, of image: RGBAImage, into png: [UInt8]
  ) -> [UInt8]? {
    let pixelXXH3 = XXH3Digest(of: image.pixels)
    return png.withUnsafeBytes { bytes -> [UInt8]? in
      guard let chunks = PNGChunks(bytes),
        let firstIDAT = chunks.chunks.firstIndex(where: { $0.type == PNGChunks.idat })
      else { return nil }
      var data = [formatVersion] + [UInt8](repeating: 0, count: 16) + pixelXXH3.bytes
      data += pixelSHA256.rawBytes
      data.replaceSubrange(1..<17, with: seal(of: chunks, in: bytes, sealing: data[...]).bytes)
      var output = Array(bytes[0..<8])
      output.reserveCapacity(bytes.count + data.count + 12)
      for (index, chunk) in chunks.chunks.enumerated() where chunk.type != type {
        if index == firstIDAT { output += PNGChunks.encode(type: type, data: data) }
        output += bytes[chunk.whole]
      }
      return output
    }
  }

  private static let type = PNGChunks.type("riDG")
  private static let dataCount = 1 + 16 + 16 + 32
  /// The chunks whose data decide the decoded pixels, and so what a version 2 seal covers.
  private static let pixelChunks: Set<UInt32> = [
    PNGChunks.ihdr, PNGChunks.type("PLTE"), PNGChunks.type("tRNS"), PNGChunks.idat,
  ]

  /// The data of the single, well-formed digest chunk, CRC checked; its version unchecked.
  private static func digestData(
    in chunks: PNGChunks, of bytes: UnsafeRawBufferPointer
  ) -> Slice<UnsafeRawBufferPointer>? {
    let digestChunks = chunks.chunks.filter { $0.type == type }
    guard digestChunks.count == 1, let chunk = digestChunks.first,
      chunk.data.count == dataCount, PNGChunks.hasValidCRC(chunk, in: bytes)
    else { return nil }
    // Rebased, so the layout's offsets (0 for the version, ...) index it directly.
    return UnsafeRawBufferPointer(rebasing: bytes[chunk.data])[...]
  }

  /// A version 2 seal: the XXH3-128 of the data of every chunk that decides the pixels, in
  /// file order, then of the chunk's two pixel digests (bytes 17–64 of `digest`).
  private static func seal(
    of chunks: PNGChunks, in bytes: UnsafeRawBufferPointer, sealing digest: some Collection<UInt8>
  ) -> XXH3Digest {
    let hasher = XXH3Digest.Hasher()
    for chunk in chunks.chunks where pixelChunks.contains(chunk.type) {
      hasher.update(UnsafeRawBufferPointer(rebasing: bytes[chunk.data]))
    }
    Array(digest.dropFirst(17)).withUnsafeBytes(hasher.update)
    return hasher.finish()
  }

  /// The SHA-256 of all IDAT chunks' data, concatenated in file order (version 1's check).
  private static func idatSHA256(
    of chunks: PNGChunks, in bytes: UnsafeRawBufferPointer
  ) -> [UInt8] {
    let hasher = SHA256.Hasher()
    for chunk in chunks.chunks where chunk.type == PNGChunks.idat {
      hasher.update(UnsafeRawBufferPointer(rebasing: bytes[chunk.data]))
    }
    return hasher.finish()
  }
}

extension RGBAImage {
  /// The SHA-256 of the pixel bytes (RGBA8, row-major, no padding) as 64 lowercase hex digits:
  /// the `hex` of what `PNGPixelDigest.pixelSHA256` and the archive manifest's `pixelSHA256`
  /// hold.
  public var pixelSHA256: String { SHA256.hex(pixels) }
}
