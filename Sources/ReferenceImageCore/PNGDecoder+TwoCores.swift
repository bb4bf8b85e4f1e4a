import CLibDeflate
import CPNGUnfilter
import CZlib
import Foundation

/// Other encoders' large RGBA images on two cores. Their image data is one zlib stream that
/// only one core can inflate, so what surrounds the inflate goes beside it: the IDAT chunks'
/// CRCs are checked on the second core while the first inflates, the split chunks are joined
/// by both, and the rows are checked (Adler-32) and unfiltered in two halves, split at a row
/// whose filter needs no row above it (None or Sub: about half of a noisy image's rows).
///
/// The pixels and the verdicts are the sequential path's: the same inflate of the same bytes
/// (raw deflate between the zlib header and trailer, which are checked as libdeflate's zlib
/// path checks them), every chunk's CRC, the whole stream's Adler-32, and the same unfiltering
/// of each row from the same row above. Any failure returns `false` and libspng decides.
extension PNGDecoder {
  /// Images whose filtered rows are at least this many bytes take this path: below it, the
  /// unfiltering is too short for a second thread to pay off.
  static let twoCoreThreshold = 4 << 20

  /// Whether an image takes this path: RGBA without a band directory (own files of several
  /// bands are inflated band by band on every core instead), and large enough on a machine of
  /// two cores or more unless `asked` says otherwise.
  static func decodesOnTwoCores(
    _ chunks: PNGChunks, channels: Int, filteredBytes: Int, asked: Bool?
  ) -> Bool {
    guard channels == 4, !chunks.chunks.contains(where: { $0.type == PNGBandDirectory.type })
    else { return false }
    return asked
      ?? (filteredBytes >= twoCoreThreshold && ProcessInfo.processInfo.activeProcessorCount >= 2)
  }

  /// Inflates and unfilters an RGBA image whose filtered rows fill `whole` from its start.
  /// - Parameters:
  ///   - whole: The pixel buffer, `height * (4 * width + 1)` bytes.
  ///   - idat: The image data, whose chunks' CRCs are not yet checked.
  /// - Returns: Whether every check passed and `whole` starts with the pixels.
  static func fillOnTwoCores(
    _ whole: UnsafeMutableRawBufferPointer, idat: ImageData, width: Int, height: Int
  ) -> Bool {
    let trailer: UInt32? = idat.withStream(joiningOnTwoCores: true) { stream in
      guard hasValidZlibHeader(stream) else { return nil }
      var results = [false, false]
      results.withUnsafeMutableBufferPointer { results in
        nonisolated(unsafe) let (results, stream, whole, idat) = (results, stream, whole, idat)
        DispatchQueue.concurrentPerform(iterations: 2) { task in
          if task == 0 {
            results[0] = inflateDeflateData(of: stream, into: whole)
          } else {
            results[1] = idat.chunkCRCsAreValid()
          }
        }
      }
      return results == [true, true] ? PNGChunks.bigEndianWord(stream, at: stream.count - 4) : nil
    }
    guard let trailer else { return false }
    let rows = whole.baseAddress!.assumingMemoryBound(to: UInt8.self)
    return unfilterInHalves(rows, width: width, height: height, expectedAdler: trailer)
  }

  /// Inflates the deflate data between a zlib stream's 2-byte header and 4-byte trailer into
  /// exactly `output.count` bytes, using every byte of it.
  private static func inflateDeflateData(
    of stream: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
  ) -> Bool {
    guard stream.count >= 6, let decompressor = LibDeflateDecompressor() else { return false }
    let deflateData = UnsafeRawBufferPointer(rebasing: stream[2..<(stream.count - 4)])
    return decompressor.inflateRaw(deflateData, into: output)
  }

  /// Checks the rows' Adler-32 and unfilters them in place, in two halves at once when a row
  /// near the middle has a filter that reads no row above; sequentially otherwise.
  private static func unfilterInHalves(
    _ rows: UnsafeMutablePointer<UInt8>, width: Int, height: Int, expectedAdler: UInt32
  ) -> Bool {
    let rowBytes = 4 * width + 1
    guard let split = splitRow(rows, rowBytes: rowBytes, height: height) else {
      let adler = libdeflate_adler32(1, rows, height * rowBytes)
      return adler == expectedAdler && ri_png_unfilter_rgba8(rows, rows, nil, width, height) == 0
    }
    let halves = RowHalves(rows: rows, width: width, height: height, split: split)
    var results: [(adler: UInt32, unfiltered: Bool)] = [(0, false), (0, false)]
    results.withUnsafeMutableBufferPointer { results in
      nonisolated(unsafe) let (results, halves) = (results, halves)
      DispatchQueue.concurrentPerform(iterations: 2) { half in
        results[half] = half == 0 ? halves.first() : halves.second()
      }
    }
    let adler = adler32_combine(
      UInt(results[0].adler), UInt(results[1].adler), off_t((height - split) * rowBytes))
    return results[0].unfiltered && results[1].unfiltered && UInt32(adler) == expectedAdler
  }

  /// An image's filtered rows, split in two at a row whose filter reads no row above, each
  /// half checked (its Adler-32) and unfiltered in place on a thread of its own.
  ///
  /// The second half writes its pixels from `split * 4 * width` on, over the end of the first
  /// half's filtered rows: those last `carried` rows are copied out before either half starts,
  /// and the first half reads them from the copy.
  private struct RowHalves {
    let rows: UnsafeMutablePointer<UInt8>
    let width: Int
    let height: Int
    let split: Int
    let carried: Int
    let carriedRows: [UInt8]

    init(rows: UnsafeMutablePointer<UInt8>, width: Int, height: Int, split: Int) {
      (self.rows, self.width, self.height, self.split) = (rows, width, height, split)
      let rowBytes = 4 * width + 1
      carried = split / rowBytes + 1
      carriedRows = Array(
        UnsafeBufferPointer(start: rows + (split - carried) * rowBytes, count: carried * rowBytes))
    }

    /// Rows `0..<split`: the Adler-32 of their filtered bytes, and whether they unfiltered.
    func first() -> (adler: UInt32, unfiltered: Bool) {
      let (rowBytes, pixelRow) = (4 * width + 1, 4 * width)
      let direct = split - carried
      return carriedRows.withUnsafeBufferPointer { carriedRows in
        let adler = adler32_combine(
          UInt(libdeflate_adler32(1, rows, direct * rowBytes)),
          UInt(libdeflate_adler32(1, carriedRows.baseAddress, carriedRows.count)),
          off_t(carriedRows.count))
        let unfiltered =
          ri_png_unfilter_rgba8(rows, rows, nil, width, direct) == 0
          && ri_png_unfilter_rgba8(
            carriedRows.baseAddress!, rows + direct * pixelRow,
            direct == 0 ? nil : rows + (direct - 1) * pixelRow, width, carried) == 0
        return (UInt32(adler), unfiltered)
      }
    }

    /// Rows `split..<height`; the split row reads no row above, so none is passed.
    func second() -> (adler: UInt32, unfiltered: Bool) {
      let start = rows + split * (4 * width + 1)
      let adler = libdeflate_adler32(1, start, (height - split) * (4 * width + 1))
      let unfiltered =
        ri_png_unfilter_rgba8(start, rows + split * 4 * width, nil, width, height - split) == 0
      return (adler, unfiltered)
    }
  }

  /// The row nearest the middle, within the middle half, whose filter is None or Sub.
  private static func splitRow(
    _ rows: UnsafePointer<UInt8>, rowBytes: Int, height: Int
  ) -> Int? {
    let middle = height / 2
    for distance in 0...(height / 4) {
      for row in [middle + distance, middle - distance]
      where row > 0 && row < height && rows[row * rowBytes] <= 1 {
        return row
      }
    }
    return nil
  }
}
