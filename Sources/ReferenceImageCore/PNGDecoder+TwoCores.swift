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

  /// Whether `fill` should take this path for an image.
  static func usesTwoCores(channels: Int, filteredBytes: Int) -> Bool {
    channels == 4 && filteredBytes >= twoCoreThreshold
      && ProcessInfo.processInfo.activeProcessorCount >= 2
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
    // The second half writes its pixels from `split * 4 * width` on, over the end of the first
    // half's filtered rows; those last `carried` rows are copied out before either starts.
    let carried = split / rowBytes + 1
    let carriedRows = Array(
      UnsafeBufferPointer(start: rows + (split - carried) * rowBytes, count: carried * rowBytes))
    var adlers: [UInt32] = [0, 0]
    var succeeded = [false, false]
    carriedRows.withUnsafeBufferPointer { carriedRows in
      adlers.withUnsafeMutableBufferPointer { adlers in
        succeeded.withUnsafeMutableBufferPointer { succeeded in
          nonisolated(unsafe) let (rows, carriedRows, adlers, succeeded) =
            (rows, carriedRows, adlers, succeeded)
          DispatchQueue.concurrentPerform(iterations: 2) { half in
            let pixelRow = 4 * width
            if half == 0 {
              let direct = split - carried
              adlers[0] = UInt32(
                adler32_combine(
                  UInt(libdeflate_adler32(1, rows, direct * rowBytes)),
                  UInt(libdeflate_adler32(1, carriedRows.baseAddress, carriedRows.count)),
                  off_t(carriedRows.count)))
              succeeded[0] =
                ri_png_unfilter_rgba8(rows, rows, nil, width, direct) == 0
                && ri_png_unfilter_rgba8(
                  carriedRows.baseAddress!, rows + direct * pixelRow,
                  direct == 0 ? nil : rows + (direct - 1) * pixelRow, width, carried) == 0
            } else {
              let start = rows + split * rowBytes
              adlers[1] = libdeflate_adler32(1, start, (height - split) * rowBytes)
              // The split row reads no row above, so none is passed.
              succeeded[1] =
                ri_png_unfilter_rgba8(start, rows + split * pixelRow, nil, width, height - split)
                == 0
            }
          }
        }
      }
    }
    let adler = adler32_combine(
      UInt(adlers[0]), UInt(adlers[1]), off_t((height - split) * rowBytes))
    return succeeded == [true, true] && UInt32(adler) == expectedAdler
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
