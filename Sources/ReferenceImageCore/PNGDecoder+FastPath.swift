import CPNGUnfilter
import Foundation

/// The common case decoded without libspng's pixel pipeline: non-interlaced 8-bit RGBA or RGB
/// with no `tRNS`, what screenshots and this package's `.fast` files are, and the forms of its
/// compact files: grey of 1, 2, 4 or 8 bits without `tRNS`, 8-bit grey with alpha, and
/// palettes of 1, 2, 4 or 8 bits with or without `tRNS`. libdeflate inflates the whole image
/// data in one call (the output size is known from the header) and `CPNGUnfilter` reverses the
/// row filters in vector lanes, in place in the returned pixel buffer (grey and palette rows
/// are expanded to RGBA as they are unfiltered).
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
    /// 4 for RGBA, 3 for RGB, 2 for grey with alpha, 1 for grey and palette indices.
    var channels: Int
    var colourType: UInt8 = 6
    var bitDepth = 8
    /// For a palette: each entry's RGBA, alpha from `tRNS` or 255.
    var paletteRGBA: [UInt8] = []

    /// The bytes of one row without its filter byte.
    var rowBytes: Int { (width * channels * bitDepth + 7) / 8 }
    /// Whether rows are expanded to RGBA (grey, grey with alpha, palette).
    var isExpanded: Bool { channels < 3 }
  }

  /// Decodes `bytes` when they are the common case; `nil` sends the caller to libspng.
  /// - Parameters:
  ///   - bytes: A PNG whose chunks before the image data libspng has read and checked.
  ///   - storage: Pixel memory to decode into, from an image the caller is done with (taken
  ///     and left empty on success), or an empty array for a fresh buffer.
  ///   - twoCores: Whether to decode on two cores (`PNGDecoder+TwoCores`); by default, for
  ///     large RGBA images.
  func decodeCommonCase(
    _ bytes: UnsafeRawBufferPointer, reusing storage: inout [UInt8], twoCores: Bool? = nil
  ) -> RGBAImage? {
    guard let chunks = PNGChunks(bytes), let header = Self.fastPathHeader(chunks, bytes)
    else { return nil }
    let (width, height, channels) = (header.width, header.height, header.channels)
    let (pixelBytes, overflow) = width.multipliedReportingOverflow(by: height * 4)
    guard !overflow, pixelBytes <= limits.maximumDecodedBytes,
      width <= RGBAImage.maximumDimension, height <= RGBAImage.maximumDimension,
      width * height <= RGBAImage.maximumPixelCount
    else { return nil }
    let filteredBytes = height * (header.rowBytes + 1)
    // On two cores the image data's CRCs are checked beside the inflate, not before it.
    let onTwoCores = Self.decodesOnTwoCores(
      chunks, channels: channels, filteredBytes: filteredBytes, asked: twoCores)
    guard let idat = Self.imageData(chunks, bytes, checkingCRCs: !onTwoCores),
      chunksAfterImageDataAreValid(chunks, bytes, header: header)
    else { return nil }
    // RGBA is unfiltered in place from the start of the buffer, which needs one byte a row
    // beyond the pixels; RGB's filtered rows sit at the end of the pixel buffer.
    let capacity = max(pixelBytes, filteredBytes)
    let fill = { (whole: UnsafeMutableRawBufferPointer) -> Bool in
      onTwoCores
        ? Self.fillOnTwoCores(whole, idat: idat, width: width, height: height)
        : Self.fill(
          whole, idat: idat, chunks: chunks, bytes: bytes, header: header,
          filteredBytes: filteredBytes)
    }
    let pixels: [UInt8]
    if storage.capacity > 0 {
      // Only the difference in size is written before decoding: a same-sized image's pages
      // are reused as they are.
      if storage.count > capacity {
        storage.removeLast(storage.count - capacity)
      } else {
        storage.append(contentsOf: repeatElement(0, count: capacity - storage.count))
      }
      guard storage.withUnsafeMutableBytes(fill) else { return nil }
      storage.removeLast(capacity - pixelBytes)
      pixels = storage
      storage = []
    } else {
      var succeeded = false
      pixels = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
        let whole = UnsafeMutableRawBufferPointer(buffer)
        if capacity >= Self.hugePageThreshold { ri_advise_huge_pages(whole.baseAddress, capacity) }
        succeeded = fill(whole)
        count = succeeded ? pixelBytes : 0
      }
      guard succeeded else { return nil }
    }
    return try? RGBAImage(width: width, height: height, pixels: pixels)
  }

  /// Inflates and unfilters the image into `whole`, `max(pixels, filteredBytes)` bytes whose
  /// first `4 * width * height` receive the pixels.
  private static func fill(
    _ whole: UnsafeMutableRawBufferPointer, idat: ImageData, chunks: PNGChunks,
    bytes: UnsafeRawBufferPointer, header: FastPathHeader, filteredBytes: Int
  ) -> Bool {
    let (width, height, channels) = (header.width, header.height, header.channels)
    let capacity = whole.count
    guard let decompressor = LibDeflateDecompressor() else { return false }
    let filtered = UnsafeMutableRawBufferPointer(
      rebasing: whole[(capacity - filteredBytes)..<capacity])
    if header.isExpanded {
      let inflated = idat.withStream { decompressor.inflateZlib($0, into: filtered) }
      return inflated && unfilterExpanding(filtered, into: whole, header: header)
    }
    // Own files of several bands come back unfiltered too; everything else is unfiltered
    // here, in one pass.
    let inflated: (succeeded: Bool, unfiltered: Bool) = idat.withStream { stream in
      if channels == 4,
        let directory = PNGBandDirectory.read(
          chunks, bytes, height: height, streamLength: stream.count),
        inflateBands(
          stream, into: filtered, width: width, directory: directory, unfilter: true)
      {
        return (true, true)
      }
      return (decompressor.inflateZlib(stream, into: filtered), false)
    }
    guard inflated.succeeded else { return false }
    let input = filtered.baseAddress!.assumingMemoryBound(to: UInt8.self)
    let output = whole.baseAddress!.assumingMemoryBound(to: UInt8.self)
    let status: Int32
    if inflated.unfiltered {
      status = 0
    } else if channels == 4 {
      status = ri_png_unfilter_rgba8(input, output, nil, width, height)
    } else {
      status = unfilterRGB(input, output, width: width, height: height)
    }
    return status == 0
  }

  /// Unfilters grey, grey-with-alpha or palette rows and expands them to RGBA at the start of
  /// `whole`, whose end holds the filtered rows.
  private static func unfilterExpanding(
    _ filtered: UnsafeMutableRawBufferPointer, into whole: UnsafeMutableRawBufferPointer,
    header: FastPathHeader
  ) -> Bool {
    let scratch = UnsafeMutablePointer<UInt8>.allocate(
      capacity: ri_png_unfilter_expand_scratch_size(header.rowBytes))
    defer { scratch.deallocate() }
    let status = header.paletteRGBA.withUnsafeBufferPointer { palette in
      ri_png_unfilter_expand_to_rgba8(
        filtered.baseAddress!.assumingMemoryBound(to: UInt8.self),
        whole.baseAddress!.assumingMemoryBound(to: UInt8.self), header.width, header.height,
        header.rowBytes, Int32(header.colourType), Int32(header.bitDepth), palette.baseAddress,
        palette.count / 4, scratch)
    }
    return status == 0
  }

  private static func unfilterRGB(
    _ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, width: Int, height: Int
  ) -> Int32 {
    let scratch = UnsafeMutablePointer<UInt8>.allocate(
      capacity: ri_png_unfilter_rgb8_scratch_size(width))
    defer { scratch.deallocate() }
    return ri_png_unfilter_rgb8_to_rgba8(input, output, width, height, scratch)
  }

  /// Buffers from this size on ask for huge pages: glibc maps allocations above 32 MiB afresh
  /// each time, and a 40 Mpx image's 160 MB would otherwise cost 40,000 page faults a decode.
  static let hugePageThreshold = 8 << 20

  /// IHDR's fields when they describe the common case: not interlaced; 8-bit RGBA, RGB or grey
  /// with alpha, or grey of 1–8 bits, with no `tRNS` chunk (whose colour key would make pixels
  /// transparent); or a palette of 1–8 bits, with its entries.
  private static func fastPathHeader(
    _ chunks: PNGChunks, _ bytes: UnsafeRawBufferPointer
  ) -> FastPathHeader? {
    let ihdr = chunks.chunks[0].data.lowerBound
    let size = chunks.size(in: bytes)
    let depth = Int(bytes[ihdr + 8])
    let colourType = bytes[ihdr + 9]
    let interlace = bytes[ihdr + 12]
    let channels: [UInt8: Int] = [6: 4, 2: 3, 4: 2, 0: 1, 3: 1]
    guard let channelCount = channels[colourType], interlace == 0, size.width > 0,
      size.height > 0,
      depth == 8 || ((colourType == 0 || colourType == 3) && [1, 2, 4].contains(depth))
    else { return nil }
    var header = FastPathHeader(
      width: size.width, height: size.height, channels: channelCount, colourType: colourType,
      bitDepth: depth)
    let hasTRNS = chunks.chunks.contains { $0.type == trns }
    if colourType == 3 {
      guard let palette = paletteRGBA(chunks, bytes) else { return nil }
      header.paletteRGBA = palette
    } else if hasTRNS {
      return nil
    }
    return header
  }

  /// PLTE's entries as RGBA, alpha from `tRNS` where it has one: nil unless there is one PLTE
  /// of 1–256 entries and at most one `tRNS` no longer than it, both with valid CRCs (libspng
  /// has refused most else before the fast path runs; this keeps the path from relying on it).
  private static func paletteRGBA(_ chunks: PNGChunks, _ bytes: UnsafeRawBufferPointer)
    -> [UInt8]?
  {
    let plte = chunks.chunks.filter { $0.type == Self.plte }
    let alphas = chunks.chunks.filter { $0.type == trns }
    // libspng drops an ancillary chunk whose CRC is wrong, so a damaged tRNS would give other
    // alphas here than there: such a file is left to libspng.
    guard plte.count == 1, alphas.count <= 1, let entries = plte.first?.data,
      entries.count % 3 == 0, (3...768).contains(entries.count),
      (alphas.first?.data.count ?? 0) <= entries.count / 3,
      (plte + alphas).allSatisfy({ PNGChunks.hasValidCRC($0, in: bytes) })
    else { return nil }
    var palette: [UInt8] = []
    palette.reserveCapacity(entries.count / 3 * 4)
    for entry in 0..<(entries.count / 3) {
      let start = entries.lowerBound + entry * 3
      palette += [bytes[start], bytes[start + 1], bytes[start + 2]]
      if let alpha = alphas.first?.data, entry < alpha.count {
        palette.append(bytes[alpha.lowerBound + entry])
      } else {
        palette.append(255)
      }
    }
    return palette
  }

  private static let plte = PNGChunks.type("PLTE")
  private static let trns = PNGChunks.type("tRNS")

  /// The image data when its IDAT chunks are consecutive and IEND's CRC is valid: the layout
  /// every encoder writes.
  /// - Parameter checkingCRCs: Whether to check the IDAT chunks' CRCs too (else the caller
  ///   checks them with `ImageData.chunkCRCsAreValid()`).
  private static func imageData(
    _ chunks: PNGChunks, _ bytes: UnsafeRawBufferPointer, checkingCRCs: Bool
  ) -> ImageData? {
    let all = chunks.chunks
    guard let idatRange = imageDataChunks(chunks), let iend = all.last,
      iend.type == PNGChunks.iend, iend.data.isEmpty
    else { return nil }
    let idat = ImageData(bytes: bytes, ranges: all[idatRange].map(\.data))
    guard ImageData.crcIsValid(of: iend.data, in: bytes),
      !checkingCRCs || idat.chunkCRCsAreValid()
    else { return nil }
    return idat
  }
}
