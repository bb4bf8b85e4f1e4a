import CLibDeflate
import CPNGUnfilter
import CZlib
import Foundation

// The image data of a banded file (`PNGBandDirectory`) inflated on every core.
extension PNGDecoder {
  /// A stored block, final and empty: appended to a band that ends with the writer's non-final
  /// empty stored block, it ends the band's deflate data for an inflate of its own.
  private static let finalEmptyStoredBlock: [UInt8] = [0x01, 0x00, 0x00, 0xFF, 0xFF]

  /// Inflates the bands a `PNGBandDirectory` names on every core, into exactly the filtered
  /// rows of each, checks the whole stream's Adler-32 and, with `unfilter`, reverses the row
  /// filters in place as each band's turn comes (a band's first row needs the unfiltered last
  /// row of the band before, and its pixels overwrite the end of that band's filtered rows).
  ///
  /// Why a success gives exactly the bytes a sequential inflate would: each band but the last
  /// is inflated from its offset with `finalEmptyStoredBlock` appended and must use every byte.
  /// That block's one set bit is its BFINAL bit, and no other bit of it can start a valid final
  /// block (the `FF FF` bytes would read as the reserved block type 3), so the band's own data
  /// ended on a block boundary exactly at its last byte, with no final block before it. Each
  /// band is inflated into its own slice of the output, and libdeflate refuses a match that
  /// reaches before the start of its output, so no band depends on another's bytes. Offsets,
  /// rows and lengths therefore describe one valid stream, read block by block in order.
  /// - Parameters:
  ///   - stream: The zlib stream.
  ///   - filtered: The filtered rows' room, `height * (4 * width + 1)` bytes; with `unfilter`,
  ///     the start of the pixel buffer, which receives the pixels.
  ///   - width: The image width (8-bit RGBA).
  ///   - directory: Where the bands start.
  ///   - unfilter: Whether to unfilter as well.
  /// - Returns: Whether every band inflated as required (and unfiltered); `false` leaves the
  ///   buffer's contents undefined and sends the caller to the sequential inflate.
  static func inflateBands(
    _ stream: UnsafeRawBufferPointer, into filtered: UnsafeMutableRawBufferPointer, width: Int,
    directory: PNGBandDirectory, unfilter: Bool = false
  ) -> Bool {
    let rowBytes = width * 4 + 1
    let height = filtered.count / rowBytes
    guard hasValidZlibHeader(stream), directory.fits(height: height, streamLength: stream.count)
    else { return false }
    let count = directory.offsets.count
    var adlers = [UInt32](repeating: 0, count: count)
    var succeeded = [Bool](repeating: false, count: count)
    // Band k signals its turn's end (unfiltered, or given up) to band k + 1.
    let turns = (0..<count).map { _ in DispatchSemaphore(value: 0) }
    adlers.withUnsafeMutableBufferPointer { adlers in
      succeeded.withUnsafeMutableBufferPointer { succeeded in
        nonisolated(unsafe) let adlers = adlers
        nonisolated(unsafe) let succeeded = succeeded
        nonisolated(unsafe) let stream = stream
        nonisolated(unsafe) let filtered = filtered
        // Iterations start in index order, so the band a task waits for is already running.
        DispatchQueue.concurrentPerform(iterations: count) { band in
          let rows =
            (band * directory.rowsPerBand)..<min(height, (band + 1) * directory.rowsPerBand)
          var ok = inflateBand(
            band, of: stream, into: filtered, rows: rows, rowBytes: rowBytes, directory: directory)
          if ok {
            let output = filtered.baseAddress! + rows.lowerBound * rowBytes
            adlers[band] = libdeflate_adler32(1, output, rows.count * rowBytes)
          }
          if band > 0 {
            turns[band - 1].wait()
            ok = ok && succeeded[band - 1]
          }
          if ok, unfilter {
            let base = filtered.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let pixelRow = width * 4
            ok =
              ri_png_unfilter_rgba8(
                base + rows.lowerBound * rowBytes, base + rows.lowerBound * pixelRow,
                band == 0 ? nil : base + (rows.lowerBound - 1) * pixelRow, width, rows.count) == 0
          }
          succeeded[band] = ok
          turns[band].signal()
        }
      }
    }
    guard succeeded.last == true else { return false }
    var adler: UInt = 1
    for (band, bandAdler) in adlers.enumerated() {
      let rows = min(height, (band + 1) * directory.rowsPerBand) - band * directory.rowsPerBand
      adler = adler32_combine(adler, UInt(bandAdler), off_t(rows * rowBytes))
    }
    return UInt32(adler) == PNGChunks.bigEndianWord(stream, at: stream.count - 4)
  }

  /// Inflates one band into its rows: the last up to the Adler-32, the others with
  /// `finalEmptyStoredBlock` appended; every byte used and every row filled, or `false`.
  private static func inflateBand(
    _ band: Int, of stream: UnsafeRawBufferPointer, into filtered: UnsafeMutableRawBufferPointer,
    rows: Range<Int>, rowBytes: Int, directory: PNGBandDirectory
  ) -> Bool {
    let isLast = band == directory.offsets.count - 1
    let input =
      directory.offsets[band]..<(isLast ? stream.count - 4 : directory.offsets[band + 1])
    let output = UnsafeMutableRawBufferPointer(
      rebasing: filtered[(rows.lowerBound * rowBytes)..<(rows.upperBound * rowBytes)])
    guard let decompressor = LibDeflateDecompressor() else { return false }
    if isLast {
      return decompressor.inflateRaw(UnsafeRawBufferPointer(rebasing: stream[input]), into: output)
    }
    let terminated = Array(stream[input]) + finalEmptyStoredBlock
    return terminated.withUnsafeBytes { decompressor.inflateRaw($0, into: output) }
  }

  /// Whether the first two bytes are a zlib header as libdeflate's zlib path requires them:
  /// deflate, a window of at most 32 KiB, no preset dictionary, and a correct check value.
  static func hasValidZlibHeader(_ stream: UnsafeRawBufferPointer) -> Bool {
    guard stream.count >= 6 else { return false }
    let cmf = stream[0]
    let flg = stream[1]
    return cmf & 0x0F == 8 && cmf >> 4 <= 7 && flg & 0x20 == 0
      && (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0
  }
}
