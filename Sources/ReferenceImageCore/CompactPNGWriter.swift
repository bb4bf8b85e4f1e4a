import CLibDeflate

/// Writes an image in the smallest of a few lossless PNG forms: every colour-type reduction the
/// pixels allow (`PNGColourForm`), each with a few row-filter strategies (`PNGFilterStrategy`),
/// the winner deflated by libdeflate at its strongest level.
///
/// Each combination is deflated at `trialLevel` to rank it, so the strong level runs once; the
/// output depends only on the pixels, never on the machine. The file holds IHDR, PLTE and tRNS
/// for a palette, one IDAT and IEND: no band directory (libdeflate cannot end a band on a byte
/// boundary mid-stream), so readers inflate it on one core.
struct CompactPNGWriter {
  /// The level that ranks the candidates: ranking at 3 instead of 12 picks nearly the same
  /// candidates (files a hundredth of a percent larger on the example references) in a fifth
  /// of the time.
  var trialLevel: Int32 = 3
  /// The level of the file's deflate.
  var finalLevel: Int32 = 12

  /// One way to write the image: its form and its filtered rows.
  private struct Candidate {
    var form: PNGColourForm
    var filtered: [UInt8]
    var trialSize: Int
  }

  /// Encodes `image`.
  /// - Returns: The PNG file's bytes, without a digest chunk.
  /// - Throws: `PNGError.outOfMemory` when libdeflate cannot allocate a compressor.
  func encode(_ image: RGBAImage) throws(PNGError) -> [UInt8] {
    guard let trial = LibDeflateCompressor(level: trialLevel),
      let strong = LibDeflateCompressor(level: finalLevel)
    else { throw .outOfMemory }
    var best: Candidate? = nil
    for form in PNGColourForm.candidates(PixelInventory(image)) {
      let rows = form.packedRows(image)
      let filters = PNGRowFilters(
        rowBytes: form.rowBytes(width: image.width), stride: form.filterStride,
        types: form.filterTypes)
      for strategy in PNGFilterStrategy.allCases {
        let filtered = filters.filter(rows, strategy: strategy)
        // PLTE and tRNS count too: a palette of many colours can cost a small image more
        // than it saves.
        let size = filtered.withUnsafeBytes { trial.zlib($0).count } + form.paletteChunks.count
        if size < best?.trialSize ?? .max {
          best = Candidate(form: form, filtered: filtered, trialSize: size)
        }
      }
    }
    guard let best else { throw .outOfMemory }
    let stream = best.filtered.withUnsafeBytes { strong.zlib($0) }
    guard !stream.isEmpty else { throw .outOfMemory }
    let compact = png(width: image.width, height: image.height, form: best.form, zlibStream: stream)
    // A few pixels can deflate a byte or two smaller the fast way; never write more than it.
    // (An empty known hash spares `BandedPNGWriter` hashing pixels that nobody reads here.)
    let fast = try BandedPNGWriter().encode(image, knownPixelSHA256: []).png
    return fast.count < compact.count ? fast : compact
  }

  /// The file around the zlib stream.
  private func png(width: Int, height: Int, form: PNGColourForm, zlibStream: [UInt8]) -> [UInt8] {
    var file = PNGFileHeader.signature
    file.reserveCapacity(zlibStream.count + 1024)
    let header =
      Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height))
      + [UInt8(form.bitDepth), form.colourType, 0, 0, 0]
    file += PNGChunks.encode(type: PNGChunks.ihdr, data: header)
    file += form.paletteChunks
    file += Self.bigEndian(UInt32(zlibStream.count)) + Self.bigEndian(PNGChunks.idat)
    file += zlibStream
    let typeCRC = Self.bigEndian(PNGChunks.idat).withUnsafeBytes {
      libdeflate_crc32(0, $0.baseAddress, $0.count)
    }
    let crc = zlibStream.withUnsafeBytes { libdeflate_crc32(typeCRC, $0.baseAddress, $0.count) }
    file += Self.bigEndian(crc)
    file += PNGChunks.encode(type: PNGChunks.iend, data: [])
    return file
  }

  private static func bigEndian(_ word: UInt32) -> [UInt8] {
    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) }
  }
}
