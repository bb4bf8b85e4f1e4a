import CSpng
import Foundation

/// Encodes an `RGBAImage` as a PNG: `.fast` as 8-bit RGBA with `BandedPNGWriter`, `.small` as
/// 8-bit RGBA with libspng (`spng_encode_image`), `.compact` in the smallest lossless form
/// (`CompactPNGWriter`).
///
/// The output is deterministic: the same pixels and setting always give the same bytes, and no
/// time or text chunk is written. Every file carries a `PNGPixelDigest` chunk (`riDG`) just
/// before its image data, so readers can learn its pixel hash without decoding.
public struct PNGEncoder: Sendable {
  /// The trade between encoding time and file size.
  public enum Setting: String, Sendable, Hashable, CaseIterable {
    /// The `Up` filter on every row, and bands of rows compressed on every core by a deflate
    /// built for speed (`BandedPNGWriter`, `FastDeflate.c`). The default, because generation
    /// runs encode thousands of images.
    ///
    /// Several times faster than libspng's single-threaded encoding at zlib level 3, for files
    /// of about the same size (much smaller on flat images, a little larger on some); a small
    /// image gains least, having few bands to share out. The figures, with the commands that
    /// measure them (`Scripts/benchmark-generation`), are in `Documentation/Benchmarks.md`
    /// ("Encoding"). Adaptive filtering is what makes `.small` slow: libspng scores all five
    /// filters on every row.
    case fast
    /// zlib level 6 with adaptive filtering, as libpng and most tools write by default.
    case small
    /// The same bytes as `.fast`, kept for callers that name it: the fast deflate is both
    /// faster and smaller than zlib at its fastest level, so there is nothing faster to offer.
    case fastest
    /// The smallest file this encoder knows how to write for the pixels, for references that
    /// are committed: the colour type reduced where no pixel changes (a palette for at most 256
    /// colours, grey, no alpha when opaque), row filters chosen for size and libdeflate's
    /// strongest level (`CompactPNGWriter`). About a hundred times `.fast`'s time, for files
    /// close to zopflipng's; the figures are in `Documentation/Benchmarks.md` ("Compact
    /// references").
    case compact

    /// The zlib level of libspng's encoder for this setting.
    var compressionLevel: Int32 {
      switch self {
      case .fastest: 1
      case .fast: 3
      case .small, .compact: 6
      }
    }
    /// Whether `BandedPNGWriter` encodes this setting (the `Up` filter, bands deflated on every
    /// core), rather than libspng's encoder (adaptive filtering, one core).
    var isBanded: Bool { self == .fast || self == .fastest }
    var filterChoice: Int32 {
      Int32(self == .small ? SPNG_FILTER_CHOICE_ALL.rawValue : SPNG_FILTER_CHOICE_UP.rawValue)
    }
  }

  /// The speed/size setting in use.
  public var setting: Setting
  /// Encodes `.fast` and `.fastest` as before `BandedPNGWriter`, with libspng on one core: the
  /// baseline of the benchmarks.
  package var usesLibspngOnly = false

  /// Creates an encoder.
  /// - Parameter setting: `.fast` unless given.
  public init(setting: Setting = .fast) {
    self.setting = setting
  }

  /// Encodes an image.
  /// - Parameter image: The pixels to encode.
  /// - Returns: The PNG file's bytes, with a `PNGPixelDigest` chunk.
  /// - Throws: `PNGError` if libspng fails (in practice only when memory runs out).
  public func encode(_ image: RGBAImage) throws(PNGError) -> [UInt8] {
    try encodeWithDigest(image).png
  }

  /// Encodes an image and returns the digest stored in it, so a caller that also records the
  /// pixel hash (an archive manifest) hashes the pixels once and records the same value.
  /// - Parameter image: The pixels to encode.
  /// - Returns: The PNG file's bytes and the digest its `riDG` chunk holds.
  /// - Throws: `PNGError` if libspng fails (in practice only when memory runs out).
  public func encodeWithDigest(
    _ image: RGBAImage
  ) throws(PNGError) -> (png: [UInt8], digest: PNGPixelDigest) {
    try encodeWithDigest(image, knownPixelSHA256: nil)
  }

  /// Encodes an image whose pixel SHA-256 the caller may have computed already (to compare it
  /// with a reference's digest), so the pixels are not hashed a second time.
  /// - Parameters:
  ///   - image: The pixels to encode.
  ///   - knownPixelSHA256: The 32-byte SHA-256 of exactly `image.pixels`, or nil. The digest
  ///     chunk vouches for it, so it must come from these pixels.
  /// - Returns: The PNG file's bytes and the digest its `riDG` chunk holds.
  /// - Throws: `PNGError` if libspng fails (in practice only when memory runs out).
  package func encodeWithDigest(
    _ image: RGBAImage, knownPixelSHA256: [UInt8]?
  ) throws(PNGError) -> (png: [UInt8], digest: PNGPixelDigest) {
    let (plain, pixelBytes) = try encodeWithoutDigest(image, knownPixelSHA256: knownPixelSHA256)
    let pixelSHA256 = SHA256Digest(rawBytes: pixelBytes)
    guard let png = PNGPixelDigest.inserting(pixelSHA256: pixelSHA256, of: image, into: plain)
    else {
      throw .libspng(
        step: "adding the pixel digest", code: Int32(SPNG_EINTERNAL.rawValue),
        message: "libspng wrote a file without image data")
    }
    let digest = PNGPixelDigest(width: image.width, height: image.height, pixelSHA256: pixelSHA256)
    return (png, digest)
  }

  /// The PNG without its digest chunk, and the pixels' SHA-256.
  private func encodeWithoutDigest(
    _ image: RGBAImage, knownPixelSHA256: [UInt8]?
  ) throws(PNGError) -> (png: [UInt8], pixelSHA256: [UInt8]) {
    if setting.isBanded, !usesLibspngOnly, image.width > 0, image.height > 0 {
      return try BandedPNGWriter().encode(image, knownPixelSHA256: knownPixelSHA256)
    }
    let pixelSHA256 = knownPixelSHA256 ?? image.pixels.withUnsafeBytes(SHA256.digest)
    if setting == .compact { return (try CompactPNGWriter().encode(image), pixelSHA256) }
    return (try encodeWithLibspng(image), pixelSHA256)
  }

  private func encodeWithLibspng(_ image: RGBAImage) throws(PNGError) -> [UInt8] {
    let header = spng_ihdr(
      width: UInt32(image.width), height: UInt32(image.height), bit_depth: 8,
      color_type: UInt8(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue), compression_method: 0,
      filter_method: 0, interlace_method: 0)
    return try image.pixels.withUnsafeBytes { bytes in
      Result { () throws(PNGError) in try encode(header: header, palette: nil, data: bytes) }
    }.get()
  }

  /// Encodes an 8-bit palette image, without a pixel digest: for images that are only looked
  /// at (the review report's difference images, which use a few dozen colours), where a
  /// quarter of the bytes to compress makes encoding several times faster.
  /// - Parameters:
  ///   - width: The width in pixels.
  ///   - height: The height in pixels.
  ///   - palette: Up to 256 opaque colours.
  ///   - indices: One palette index per pixel, row-major.
  /// - Returns: The PNG file's bytes.
  /// - Throws: `PNGError` if libspng refuses the input or runs out of memory.
  package func encodeIndexed(
    width: Int, height: Int, palette: [RGBAColor], indices: [UInt8]
  ) throws(PNGError) -> [UInt8] {
    precondition(palette.count <= 256 && indices.count == width * height)
    var plte = spng_plte()
    plte.n_entries = UInt32(palette.count)
    withUnsafeMutableBytes(of: &plte.entries) { entries in
      for (index, color) in palette.enumerated() {
        entries[index * 4] = color.red
        entries[index * 4 + 1] = color.green
        entries[index * 4 + 2] = color.blue
        entries[index * 4 + 3] = 255
      }
    }
    let header = spng_ihdr(
      width: UInt32(width), height: UInt32(height), bit_depth: 8,
      color_type: UInt8(SPNG_COLOR_TYPE_INDEXED.rawValue), compression_method: 0,
      filter_method: 0, interlace_method: 0)
    return try indices.withUnsafeBytes { bytes in
      Result { () throws(PNGError) in try encode(header: header, palette: plte, data: bytes) }
    }.get()
  }

  /// `spng_encode_image` of `data` under `header` (and `palette` for indexed images) with
  /// this encoder's setting.
  private func encode(header: spng_ihdr, palette: spng_plte?, data: UnsafeRawBufferPointer)
    throws(PNGError) -> [UInt8]
  {
    let context = try SpngContext(encoder: true)
    let ctx = context.pointer
    try context.check(
      spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1), "choosing buffer output")
    try context.check(
      spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, setting.compressionLevel),
      "setting the compression level")
    try context.check(
      spng_set_option(ctx, SPNG_FILTER_CHOICE, setting.filterChoice), "setting the filters")
    var header = header
    try context.check(spng_set_ihdr(ctx, &header), "writing the header")
    if var palette {
      try context.check(spng_set_plte(ctx, &palette), "writing the palette")
    }
    let status = spng_encode_image(
      ctx, data.baseAddress, data.count, Int32(SPNG_FMT_PNG.rawValue),
      Int32(SPNG_ENCODE_FINALIZE.rawValue))
    try context.check(status, "encoding pixels")
    var length = 0
    var error: Int32 = 0
    guard let buffer = spng_get_png_buffer(ctx, &length, &error) else {
      try context.check(error == 0 ? Int32(SPNG_EINTERNAL.rawValue) : error, "taking the output")
      throw .outOfMemory
    }
    defer { free(buffer) }
    return [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
  }
}
