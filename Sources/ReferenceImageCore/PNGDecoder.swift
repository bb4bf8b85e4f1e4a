import CSpng
import Foundation

/// Decodes PNG data of any colour type, bit depth and interlacing into an `RGBAImage`,
/// using libspng (`spng_decode_image` with `SPNG_FMT_RGBA8` and `SPNG_DECODE_TRNS`).
///
/// Sixteen-bit samples keep their high byte; palettes and `tRNS` transparency are applied;
/// gamma and colour-profile chunks are ignored, so pixels come out exactly as stored.
public struct PNGDecoder: Sendable {
  /// Bounds that protect a process from hostile or absurd files.
  public struct Limits: Sendable, Hashable {
    /// The largest accepted width in pixels.
    public var maximumWidth: Int
    /// The largest accepted height in pixels.
    public var maximumHeight: Int
    /// The largest accepted RGBA8 output in bytes.
    public var maximumDecodedBytes: Int
    /// The largest accepted single chunk, in bytes (text, ICC profiles and so on).
    public var maximumChunkBytes: Int

    /// Creates limits.
    /// - Parameters:
    ///   - maximumWidth: The largest width.
    ///   - maximumHeight: The largest height.
    ///   - maximumDecodedBytes: The largest RGBA8 output.
    ///   - maximumChunkBytes: The largest ancillary chunk.
    public init(
      maximumWidth: Int, maximumHeight: Int, maximumDecodedBytes: Int, maximumChunkBytes: Int
    ) {
      self.maximumWidth = maximumWidth
      self.maximumHeight = maximumHeight
      self.maximumDecodedBytes = maximumDecodedBytes
      self.maximumChunkBytes = maximumChunkBytes
    }

    /// 16384 × 16384 pixels and 512 MiB decoded: any real screenshot, no decompression bomb.
    public static let `default` = Limits(
      maximumWidth: 16384, maximumHeight: 16384, maximumDecodedBytes: 512 << 20,
      maximumChunkBytes: 16 << 20)
  }

  /// The limits this decoder enforces.
  public var limits: Limits

  /// Creates a decoder.
  /// - Parameter limits: The bounds to enforce; `.default` unless given.
  public init(limits: Limits = .default) {
    self.limits = limits
  }

  /// Reads width and height from the header without decoding pixels.
  /// - Parameter data: The PNG bytes.
  /// - Returns: The image size.
  /// - Throws: `PNGError` when the header is malformed.
  public func size(of data: some ContiguousBytes) throws(PNGError) -> (width: Int, height: Int) {
    try withContext(data) { context, _ throws(PNGError) in
      var header = spng_ihdr()
      try context.check(spng_get_ihdr(context.pointer, &header), "reading the header")
      return (Int(header.width), Int(header.height))
    }
  }

  /// Decodes PNG bytes into RGBA8.
  /// - Parameter data: The PNG bytes.
  /// - Returns: The decoded image.
  /// - Throws: `PNGError` for anything that is not a valid PNG within the limits.
  public func decode(_ data: some ContiguousBytes) throws(PNGError) -> RGBAImage {
    try decode(data, commonCase: true)
  }

  /// Decodes PNG bytes into the pixel memory of an image the caller has finished with, so a
  /// loop that decodes one file after another (a verify run, a merge, a review) writes the
  /// same pages again instead of having fresh ones faulted in for every image.
  ///
  /// The memory is reused when `recycled` holds the only reference to its pixels (pass it with
  /// `consume`: `image = try decoder.decode(next, reusing: consume image)`) and the file is
  /// 8-bit RGBA or RGB; otherwise this is `decode(_:)`. The pixels are the same either way.
  /// - Parameters:
  ///   - data: The PNG bytes.
  ///   - recycled: An image whose pixels are no longer needed.
  /// - Returns: The decoded image.
  /// - Throws: `PNGError` for anything that is not a valid PNG within the limits.
  public func decode(
    _ data: some ContiguousBytes, reusing recycled: consuming RGBAImage
  ) throws(PNGError) -> RGBAImage {
    var storage: [UInt8] = []
    swap(&storage, &recycled.pixels)
    return try decode(data, commonCase: true, reusing: &storage)
  }

  /// Decodes PNG bytes, through the fast path for the common case when `commonCase` is true,
  /// or through libspng alone, as every version before the fast path did (the benchmarks'
  /// "before", and the tests' reference).
  /// - Parameter twoCores: For the fast path, whether to decode on two cores whatever the
  ///   image's size (the tests' way to reach that path with small images).
  package func decode(
    _ data: some ContiguousBytes, commonCase: Bool, twoCores: Bool? = nil
  ) throws(PNGError) -> RGBAImage {
    var storage: [UInt8] = []
    return try decode(data, commonCase: commonCase, reusing: &storage, twoCores: twoCores)
  }

  private func decode(
    _ data: some ContiguousBytes, commonCase: Bool, reusing storage: inout [UInt8],
    twoCores: Bool? = nil
  ) throws(PNGError) -> RGBAImage {
    let image = try withContext(data) { context, bytes throws(PNGError) in
      if commonCase,
        let image = decodeCommonCase(bytes, reusing: &storage, twoCores: twoCores)
      {
        return image
      }
      var header = spng_ihdr()
      try context.check(spng_get_ihdr(context.pointer, &header), "reading the header")
      let width = Int(header.width)
      let height = Int(header.height)
      let format = Int32(SPNG_FMT_RGBA8.rawValue)
      var length = 0
      try context.check(
        spng_decoded_image_size(context.pointer, format, &length), "sizing the image")
      guard length <= limits.maximumDecodedBytes, length == width * height * 4 else {
        throw .tooLarge(width: width, height: height, limits: limits)
      }
      var pixels = [UInt8](repeating: 0, count: length)
      let status = pixels.withUnsafeMutableBytes { buffer in
        spng_decode_image(
          context.pointer, buffer.baseAddress, buffer.count, format,
          Int32(SPNG_DECODE_TRNS.rawValue))
      }
      try context.check(status, "decoding pixels")
      // spng_decode_image stops once the zlib stream ends: without reading on to IEND, a bad
      // CRC on the last IDAT chunk, a damaged IEND or a file cut after the pixel data would pass.
      try context.check(spng_decode_chunks(context.pointer), "reading the chunks after the pixels")
      do {
        return try RGBAImage(width: width, height: height, pixels: pixels)
      } catch {
        throw .tooLarge(width: width, height: height, limits: limits)
      }
    }
    // libspng 0.7 accepts a file that ends inside IEND's CRC; a truncated file is malformed.
    guard data.withUnsafeBytes(Self.containsCompleteIEND) else {
      throw .libspng(
        step: "reading the end of the file", code: Int32(SPNG_EOF.rawValue),
        message: "the file ends inside the IEND chunk, so it is truncated")
    }
    return image
  }

  /// Whether the 12 bytes of an IEND chunk (empty, so its CRC is constant) occur in the data:
  /// at the very end for every ordinary file, so the search is one comparison.
  private static func containsCompleteIEND(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let count = iend.count
    guard bytes.count >= count else { return false }
    if bytes[(bytes.count - count)...].elementsEqual(iend) { return true }
    // Data after IEND is ignored by decoders; look for IEND itself.
    return (0...(bytes.count - count)).contains { start in
      bytes[start..<(start + count)].elementsEqual(iend)
    }
  }

  /// A complete IEND chunk: length 0, type, and the CRC of the type.
  static let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]

  /// Sets up a decoder context over `data`, with limits and strict CRC checking, and runs `body`
  /// while the bytes stay alive.
  private func withContext<Result>(
    _ data: some ContiguousBytes,
    _ body: (SpngContext, UnsafeRawBufferPointer) throws(PNGError) -> Result
  ) throws(PNGError) -> Result {
    let outcome: Swift.Result<Result, PNGError> = data.withUnsafeBytes { bytes in
      do {
        return .success(try decode(bytes, body))
      } catch let error as PNGError {
        return .failure(error)
      } catch {
        return .failure(.outOfMemory)
      }
    }
    return try outcome.get()
  }

  func decode<Result>(
    _ bytes: UnsafeRawBufferPointer,
    _ body: (SpngContext, UnsafeRawBufferPointer) throws(PNGError) -> Result
  ) throws(PNGError) -> Result {
    guard bytes.count >= 8, bytes.starts(with: PNGFileHeader.signature) else {
      if let pointer = GitLFSPointer(bytes) { throw .gitLFSPointer(pointer) }
      throw .notPNG(byteCount: bytes.count)
    }
    let context = try SpngContext(encoder: false)
    try context.check(
      spng_set_image_limits(
        context.pointer, UInt32(clamping: limits.maximumWidth),
        UInt32(clamping: limits.maximumHeight)), "setting limits")
    try context.check(
      spng_set_chunk_limits(
        context.pointer, limits.maximumChunkBytes, limits.maximumChunkBytes * 4),
      "setting chunk limits")
    try context.check(
      spng_set_png_buffer(context.pointer, bytes.baseAddress, bytes.count), "reading the buffer")
    var header = spng_ihdr()
    let status = spng_get_ihdr(context.pointer, &header)
    if status == Int32(SPNG_EUSER_WIDTH.rawValue) || status == Int32(SPNG_EUSER_HEIGHT.rawValue) {
      // libspng read the signature and IHDR to get this far.
      let size = PNGFileHeader.size(of: bytes) ?? (0, 0)
      throw .tooLarge(width: size.width, height: size.height, limits: limits)
    }
    try context.check(status, "reading the header")
    // spng_get_ihdr does not verify IHDR's CRC (libspng checks it only when it reads the next
    // chunk), so a corrupted width would be believed; reading up to the image data checks it.
    try context.check(spng_decode_chunks(context.pointer), "reading the chunks before the pixels")
    return try body(context, bytes)
  }
}
