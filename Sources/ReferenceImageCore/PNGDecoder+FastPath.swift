import CLibDeflate
import CPNGUnfilter

/// The common case decoded without libspng's pixel pipeline: non-interlaced 8-bit RGBA or RGB
/// with no `tRNS`, what screenshots and this package's own files are. libdeflate inflates the
/// whole image data in one call (the output size is known from the header) and `CPNGUnfilter`
/// reverses the row filters in vector lanes, in place in the returned pixel buffer.
///
/// The path only ever accepts files that libspng accepts with the same pixels: libspng has
/// already read and checked every chunk before the image data when it runs, and anything the
/// path does not recognise as plainly valid (a chunk other than IEND after the image data, a
/// bad CRC, a zlib stream that is damaged, too short, too long or followed by other bytes, an
/// unknown filter byte) returns `nil`, and the caller decodes with libspng, which then decides
/// and words the error exactly as before.
extension PNGDecoder {
  /// The header fields the fast path needs, from IHDR's 13 bytes.
  struct FastPathHeader {
    var width: Int
    var height: Int
    /// 4 for RGBA, 3 for RGB.
    var channels: Int
  }

  /// Decodes `bytes` when they are the common case; `nil` sends the caller to libspng.
  /// - Parameter bytes: A PNG whose chunks before the image data libspng has read and checked.
  func decodeCommonCase(_ bytes: UnsafeRawBufferPointer) -> RGBAImage? {
    guard let chunks = PNGChunks(bytes), let header = Self.fastPathHeader(chunks, bytes),
      let idat = Self.imageData(chunks, bytes)
    else { return nil }
    let (width, height, channels) = (header.width, header.height, header.channels)
    let (pixelBytes, overflow) = width.multipliedReportingOverflow(by: height * 4)
    guard !overflow, pixelBytes <= limits.maximumDecodedBytes,
      width <= RGBAImage.maximumDimension, height <= RGBAImage.maximumDimension,
      width * height <= RGBAImage.maximumPixelCount
    else { return nil }
    let filteredBytes = height * (width * channels + 1)
    // RGBA is unfiltered in place from the start of the buffer, which needs one byte a row
    // beyond the pixels; RGB's filtered rows sit at the end of the pixel buffer.
    let capacity = max(pixelBytes, filteredBytes)
    guard let decompressor = LibDeflateDecompressor() else { return nil }
    var succeeded = false
    let pixels = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
      count = 0
      let whole = UnsafeMutableRawBufferPointer(buffer)
      let filtered = UnsafeMutableRawBufferPointer(
        rebasing: whole[(capacity - filteredBytes)..<capacity])
      let inflated = idat.withStream { stream in
        decompressor.inflateZlib(stream, into: filtered)
      }
      guard inflated else { return }
      let input = filtered.baseAddress!.assumingMemoryBound(to: UInt8.self)
      let output = whole.baseAddress!.assumingMemoryBound(to: UInt8.self)
      let status: Int32
      if channels == 4 {
        status = ri_png_unfilter_rgba8(input, output, nil, width, height)
      } else {
        status = Self.unfilterRGB(input, output, width: width, height: height)
      }
      guard status == 0 else { return }
      count = pixelBytes
      succeeded = true
    }
    guard succeeded else { return nil }
    return try? RGBAImage(width: width, height: height, pixels: pixels)
  }

  private static func unfilterRGB(
    _ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, width: Int, height: Int
  ) -> Int32 {
    let scratch = UnsafeMutablePointer<UInt8>.allocate(
      capacity: ri_png_unfilter_rgb8_scratch_size(width))
    defer { scratch.deallocate() }
    return ri_png_unfilter_rgb8_to_rgba8(input, output, width, height, scratch)
  }

  /// IHDR's fields when they describe the common case: 8-bit RGBA or RGB, not interlaced, and
  /// no `tRNS` chunk (whose colour key would make RGB pixels transparent).
  private static func fastPathHeader(
    _ chunks: PNGChunks, _ bytes: UnsafeRawBufferPointer
  ) -> FastPathHeader? {
    let ihdr = chunks.chunks[0].data.lowerBound
    let size = chunks.size(in: bytes)
    let depth = bytes[ihdr + 8]
    let colourType = bytes[ihdr + 9]
    let interlace = bytes[ihdr + 12]
    guard depth == 8, colourType == 6 || colourType == 2, interlace == 0, size.width > 0,
      size.height > 0, !chunks.chunks.contains(where: { $0.type == trns })
    else { return nil }
    return FastPathHeader(width: size.width, height: size.height, channels: colourType == 6 ? 4 : 3)
  }

  private static let trns = PNGChunks.type("tRNS")

  /// The image data when its IDAT chunks are consecutive, each with a valid CRC, and followed
  /// directly by IEND: the layout every encoder writes. Chunks after the image data are for
  /// libspng to check.
  private static func imageData(
    _ chunks: PNGChunks, _ bytes: UnsafeRawBufferPointer
  ) -> ImageData? {
    let all = chunks.chunks
    guard let first = all.firstIndex(where: { $0.type == PNGChunks.idat }),
      all.count >= first + 2, all.last?.type == PNGChunks.iend, all.last?.data.isEmpty == true
    else { return nil }
    let idat = all[first..<(all.count - 1)]
    guard idat.allSatisfy({ $0.type == PNGChunks.idat }) else { return nil }
    for chunk in idat + [all[all.count - 1]] {
      let typeAndData = UnsafeRawBufferPointer(
        rebasing: bytes[(chunk.data.lowerBound - 4)..<chunk.data.upperBound])
      let crc = libdeflate_crc32(0, typeAndData.baseAddress, typeAndData.count)
      guard crc == PNGChunks.bigEndianWord(bytes, at: chunk.data.upperBound) else { return nil }
    }
    return ImageData(bytes: bytes, ranges: idat.map(\.data))
  }

  /// The zlib stream of the image data, which may be split over several IDAT chunks.
  struct ImageData {
    var bytes: UnsafeRawBufferPointer
    var ranges: [Range<Int>]

    /// The total length of the zlib stream.
    var count: Int { ranges.reduce(0) { $0 + $1.count } }

    /// Runs `body` with the stream in one piece: the file's own bytes for a single IDAT, a
    /// joined copy otherwise (compressed data, small beside the image).
    func withStream<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
      if ranges.count == 1 { return body(UnsafeRawBufferPointer(rebasing: bytes[ranges[0]])) }
      var joined: [UInt8] = []
      joined.reserveCapacity(count)
      for range in ranges { joined += bytes[range] }
      return joined.withUnsafeBytes(body)
    }
  }
}
