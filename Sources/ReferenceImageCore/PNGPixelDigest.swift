/// The pixel digest that `PNGEncoder` stores in every PNG it writes: a private ancillary chunk
/// `riDG` that says which RGBA8 pixels the file decodes to, so a caller can learn a reference's
/// pixel hash with one pass over the chunks instead of a decode.
///
/// The chunk holds a format version, the SHA-256 of the file's IDAT data (all IDAT chunks'
/// data concatenated) and the SHA-256 of the decoded RGBA8 pixels (row-major, no padding; the
/// archive manifest's `pixelSHA256`). It is believed only when the IDAT digest matches the
/// file's own IDAT bytes: a tool that rewrites the image data while keeping the chunk leaves a
/// stale pixel hash behind, and the mismatch sends the caller back to decoding. The type's
/// fourth letter is upper case (unsafe to copy), so editors that follow the PNG rules drop the
/// chunk when they change the image.
public struct PNGPixelDigest: Sendable, Hashable {
  /// The width in IHDR.
  public var width: Int
  /// The height in IHDR.
  public var height: Int
  /// The SHA-256 of the decoded RGBA8 pixels, as 64 lowercase hex digits; the same value as
  /// `RGBAImage.pixelSHA256` and the archive manifest's `pixelSHA256`.
  public var pixelSHA256: String

  /// The chunk's type: ancillary, private, reserved bit clear, unsafe to copy.
  public static let chunkType = "riDG"
  /// The layout version this package writes and reads: one byte `1`, then the 32-byte IDAT
  /// SHA-256, then the 32-byte pixel SHA-256 (65 bytes of chunk data).
  public static let formatVersion: UInt8 = 1

  /// Reads the digest of a PNG file without decoding it.
  /// - Parameter png: The PNG file's bytes.
  /// - Returns: The digest, or `nil` when the file has no `riDG` chunk, has more than one, has
  ///   one of another version or with a bad CRC, is not a well-formed chunk sequence, or when
  ///   the chunk's IDAT digest does not match the file's IDAT data. `nil` means "decode it".
  public static func read(fromPNG png: [UInt8]) -> PNGPixelDigest? {
    png.withUnsafeBytes(read(fromPNG:))
  }

  /// Reads the digest of a PNG file without decoding it; see `read(fromPNG:)` for `[UInt8]`.
  /// - Parameter png: The PNG file's bytes.
  /// - Returns: The digest, or `nil` when there is no trustworthy one.
  public static func read(fromPNG png: UnsafeRawBufferPointer) -> PNGPixelDigest? {
    guard let chunks = PNGChunks(png), chunks.chunks.contains(where: { $0.type == PNGChunks.idat }),
      let stored = storedDigest(in: chunks, of: png), stored.idat == idatSHA256(of: chunks, in: png)
    else { return nil }
    let size = chunks.size(in: png)
    return PNGPixelDigest(
      width: size.width, height: size.height, pixelSHA256: SHA256.hexString(stored.pixels))
  }

  /// Whether an image has exactly the pixels this digest describes: the same size and the
  /// same pixel SHA-256 (which this call computes).
  /// - Parameter image: The image to check, typically a freshly rendered one.
  /// - Returns: `true` when the file's decoded pixels would equal `image`'s.
  public func matches(_ image: RGBAImage) -> Bool {
    image.width == width && image.height == height && image.pixelSHA256 == pixelSHA256
  }

  /// A PNG with a fresh digest chunk for the given pixel hash, placed just before the first
  /// IDAT; any earlier `riDG` chunk is dropped. Every other byte, IDAT included, is kept.
  /// - Parameters:
  ///   - png: A PNG file.
  ///   - pixelSHA256: The 32-byte SHA-256 of the pixels `png` decodes to.
  /// - Returns: The new file, or `nil` when `png` is not a well-formed chunk sequence with
  ///   image data.
  package static func inserting(pixelSHA256: [UInt8], into png: [UInt8]) -> [UInt8]? {
    precondition(pixelSHA256.count == 32, "a SHA-256 has 32 bytes")
    return png.withUnsafeBytes { bytes -> [UInt8]? in
      guard let chunks = PNGChunks(bytes),
        let firstIDAT = chunks.chunks.firstIndex(where: { $0.type == PNGChunks.idat })
      else { return nil }
      let data = [formatVersion] + idatSHA256(of: chunks, in: bytes) + pixelSHA256
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
  private static let dataCount = 1 + 32 + 32

  /// The two digests a single, well-formed version-1 chunk stores.
  private static func storedDigest(
    in chunks: PNGChunks, of bytes: UnsafeRawBufferPointer
  ) -> (idat: [UInt8], pixels: [UInt8])? {
    let digestChunks = chunks.chunks.filter { $0.type == type }
    guard digestChunks.count == 1, let chunk = digestChunks.first,
      chunk.data.count == dataCount, bytes[chunk.data.lowerBound] == formatVersion,
      PNGChunks.hasValidCRC(chunk, in: bytes)
    else { return nil }
    let idatStart = chunk.data.lowerBound + 1
    return (
      Array(bytes[idatStart..<(idatStart + 32)]), Array(bytes[(idatStart + 32)..<(idatStart + 64)])
    )
  }

  /// The SHA-256 of all IDAT chunks' data, concatenated in file order.
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
  /// what `PNGPixelDigest.pixelSHA256` and the archive manifest's `pixelSHA256` hold.
  public var pixelSHA256: String { SHA256.hex(pixels) }
}
