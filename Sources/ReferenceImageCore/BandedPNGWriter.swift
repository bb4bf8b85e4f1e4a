import CFastDeflate
import CZlib
import Foundation

/// Writes an 8-bit RGBA PNG with the `Up` filter on every row, deflating bands of rows on every
/// core with `ri_fast_deflate`, while another core hashes the pixels for the digest chunk.
///
/// libspng's single-threaded encoding spends its time in zlib's deflate and adler32 above all,
/// then in its own filtering and the pixel SHA-256. Here the filter is a loop the compiler
/// vectorises, the deflate is one probe per position instead of zlib's hash chains (a fraction
/// of the CPU at level 3's file size, see `FastDeflate.c`), and the rest runs in parallel.
///
/// The output stays deterministic: the bands depend only on the image's size, never on the
/// number of cores. Each band ends byte-aligned with an empty stored block, as zlib's sync
/// flush, so the bands concatenate into one valid zlib stream. A band's matches never reach
/// into the band before it: reaching back would save almost nothing.
struct BandedPNGWriter {
  /// About this much filtered data per band: enough for each to amortise priming its window,
  /// and bands enough to keep every core busy.
  static let bytesPerBand = 1 << 20

  /// A band's deflated bytes, and the adler32 and length of its filtered data.
  private struct Band {
    var deflated: [UInt8] = []
    var adler: UInt = 1
    var length = 0
  }

  /// Encodes `image`.
  /// - Parameters:
  ///   - image: The pixels to encode.
  ///   - knownPixelSHA256: The pixels' SHA-256 when the caller has it already; computed
  ///     alongside the bands otherwise.
  /// - Returns: The PNG file's bytes, without a digest chunk, and the 32-byte SHA-256 of the
  ///   pixels.
  /// - Throws: `PNGError.outOfMemory` when the compressor cannot allocate its tables.
  func encode(_ image: RGBAImage, knownPixelSHA256: [UInt8]? = nil) throws(PNGError) -> (
    png: [UInt8], pixelSHA256: [UInt8]
  ) {
    let rowsPerBand = max(1, Self.bytesPerBand / (image.width * 4 + 1))
    let bandCount = (image.height + rowsPerBand - 1) / rowsPerBand
    var bands = [Band?](repeating: nil, count: bandCount)
    var pixelSHA256 = knownPixelSHA256 ?? []
    let hashTasks = knownPixelSHA256 == nil ? 1 : 0
    image.pixels.withUnsafeBytes { pixels in
      bands.withUnsafeMutableBufferPointer { slots in
        nonisolated(unsafe) let slots = slots
        nonisolated(unsafe) let pixels = pixels
        nonisolated(unsafe) var hash: [UInt8] = []
        // One more task than bands when the pixel hash is to be computed, started first so it
        // overlaps the bands.
        DispatchQueue.concurrentPerform(iterations: bandCount + hashTasks) { task in
          if task < hashTasks {
            hash = SHA256.digest(pixels)
            return
          }
          let index = task - hashTasks
          let rows = (index * rowsPerBand)..<min(image.height, (index + 1) * rowsPerBand)
          slots[index] = deflate(
            pixels, width: image.width, rows: rows, isLast: index == bandCount - 1)
        }
        if hashTasks == 1 { pixelSHA256 = hash }
      }
    }
    // CMF: deflate with a 32 KiB window; FLG: the fastest algorithm, and the check bits.
    var stream: [UInt8] = [0x78, 0x01]
    var adler: UInt = 1
    var offsets: [Int] = []
    for band in bands {
      guard let band else { throw .outOfMemory }
      offsets.append(stream.count)
      stream += band.deflated
      adler = adler32_combine(adler, band.adler, off_t(band.length))
    }
    stream += bigEndian(UInt32(adler))
    // Readers decode the bands in parallel with the directory; one band gains nothing, and the
    // offsets are 32-bit words.
    let directory =
      bandCount >= 2 && stream.count <= Int(UInt32.max)
      ? PNGBandDirectory(rowsPerBand: rowsPerBand, offsets: offsets) : nil
    return (png(image, zlibStream: stream, directory: directory), pixelSHA256)
  }

  /// Filters and deflates one band; nil when zlib cannot allocate its state.
  private func deflate(
    _ pixels: UnsafeRawBufferPointer, width: Int, rows: Range<Int>, isLast: Bool
  ) -> Band? {
    let rowBytes = width * 4 + 1
    let filtered = [UInt8](unsafeUninitializedCapacity: rows.count * rowBytes) { output, count in
      let output = UnsafeMutableRawBufferPointer(output)
      for (position, row) in rows.enumerated() {
        filterUp(pixels, row: row, width: width, into: output, at: position * rowBytes)
      }
      count = rows.count * rowBytes
    }
    return filtered.withUnsafeBytes { data -> Band? in
      guard let deflated = deflate(data, isLast: isLast) else { return nil }
      let bytes = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
      let adler = UInt(ri_adler32(1, bytes, data.count))
      return Band(deflated: deflated, adler: adler, length: data.count)
    }
  }

  /// One row with its filter byte (2, `Up`): each byte minus the byte above it.
  private func filterUp(
    _ pixels: UnsafeRawBufferPointer, row: Int, width: Int,
    into output: UnsafeMutableRawBufferPointer, at offset: Int
  ) {
    let count = width * 4
    let current = pixels.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * count
    let target = output.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset
    target[0] = 2
    if row == 0 {
      (target + 1).update(from: current, count: count)
      return
    }
    let above = current - count
    for index in 0..<count { target[1 + index] = current[index] &- above[index] }
  }

  /// Raw deflate of `data`, ending byte-aligned so the next band's data follows, or finishing
  /// the stream for the last band; nil when the compressor cannot allocate its tables.
  private func deflate(_ data: UnsafeRawBufferPointer, isLast: Bool) -> [UInt8]? {
    let input = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
    let deflated = [UInt8](unsafeUninitializedCapacity: ri_fast_deflate_bound(data.count)) {
      output, count in
      count = ri_fast_deflate(input, data.count, isLast ? 1 : 0, output.baseAddress!)
    }
    return deflated.isEmpty ? nil : deflated
  }

  /// The PNG around the zlib stream: signature, IHDR, the band directory, one IDAT, IEND.
  private func png(
    _ image: RGBAImage, zlibStream: [UInt8], directory: PNGBandDirectory?
  ) -> [UInt8] {
    var file = PNGFileHeader.signature
    file.reserveCapacity(zlibStream.count + 64)
    // Width, height, bit depth 8, colour type 6 (RGBA), deflate, adaptive filtering, no
    // interlacing.
    let header = bigEndian(UInt32(image.width)) + bigEndian(UInt32(image.height)) + [8, 6, 0, 0, 0]
    file += PNGChunks.encode(type: PNGChunks.ihdr, data: header)
    if let directory {
      file += PNGChunks.encode(type: PNGBandDirectory.type, data: directory.chunkData)
    }
    appendChunk(PNGChunks.idat, zlibStream, to: &file)
    file += PNGChunks.encode(type: PNGChunks.iend, data: [])
    return file
  }

  /// Appends a chunk whose CRC zlib computes: the image data is too large for the byte-wise
  /// CRC of `PNGChunks`.
  private func appendChunk(_ type: UInt32, _ data: [UInt8], to file: inout [UInt8]) {
    let typeBytes = bigEndian(type)
    file += bigEndian(UInt32(data.count)) + typeBytes
    file += data
    var crc = typeBytes.withUnsafeBufferPointer { crc32_z(0, $0.baseAddress, $0.count) }
    crc = data.withUnsafeBufferPointer { crc32_z(crc, $0.baseAddress, $0.count) }
    file += bigEndian(UInt32(crc))
  }

  private func bigEndian(_ word: UInt32) -> [UInt8] {
    [
      UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
      UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word),
    ]
  }
}
