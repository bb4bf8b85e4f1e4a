/// Where the bands of a `BandedPNGWriter` file start: a private ancillary chunk `riBD` before
/// the image data, so a reader can inflate and unfilter the bands on every core.
///
/// The writer deflates bands of rows independently (no match reaches into an earlier band)
/// and ends each band but the last byte-aligned with an empty stored block, so the bands
/// concatenate into one zlib stream that every reader decodes as usual. The chunk records the
/// rows per band and, for each band, the offset in the zlib stream (all IDAT data concatenated,
/// from its 2-byte header on) where its deflate data starts.
///
/// The reader never trusts it: a band is accepted only when, inflated on its own from its
/// offset with a final empty stored block appended, it fills exactly its rows and ends exactly
/// where the next band starts, and the Adler-32 of all bands matches the stream's. Under those
/// conditions the bands are, bit for bit, the blocks a sequential inflate of the whole stream
/// reads (see `PNGDecoder.decodeBands`), so a wrong or forged directory can only send the reader
/// back to the sequential path, never change a pixel. The type's fourth letter is upper case
/// (unsafe to copy): an editor that rewrites the image data drops the chunk.
struct PNGBandDirectory: Equatable {
  /// The rows in every band but the last, which holds the rest.
  var rowsPerBand: Int
  /// Each band's start in the zlib stream; the first is 2, after the zlib header.
  var offsets: [Int]

  /// The chunk's type: ancillary, private, reserved bit clear, unsafe to copy.
  static let type = PNGChunks.type("riBD")
  /// The layout version written and read: one byte `1`, the rows per band and the number of
  /// bands as big-endian 32-bit words, then each band's offset as one.
  static let formatVersion: UInt8 = 1

  /// The chunk's data.
  var chunkData: [UInt8] {
    var data: [UInt8] = [Self.formatVersion]
    for value in [rowsPerBand, offsets.count] + offsets { data += Self.bigEndian(value) }
    return data
  }

  /// The directory a file records, when it has exactly one `riBD` chunk of this version with a
  /// correct CRC whose bands cover `height` rows and whose offsets rise inside a zlib stream
  /// of `streamLength` bytes; `nil` otherwise (the file is then decoded sequentially).
  static func read(
    _ chunks: PNGChunks, _ bytes: UnsafeRawBufferPointer, height: Int, streamLength: Int
  ) -> PNGBandDirectory? {
    let found = chunks.chunks.filter { $0.type == type }
    guard found.count == 1, let chunk = found.first, chunk.data.count >= 9,
      bytes[chunk.data.lowerBound] == formatVersion, PNGChunks.hasValidCRC(chunk, in: bytes)
    else { return nil }
    let words = stride(from: chunk.data.lowerBound + 1, to: chunk.data.upperBound, by: 4).map {
      Int(PNGChunks.bigEndianWord(bytes, at: $0))
    }
    guard (chunk.data.count - 1) % 4 == 0, words.count >= 2 else { return nil }
    let directory = PNGBandDirectory(rowsPerBand: words[0], offsets: Array(words[2...]))
    guard words[1] == directory.offsets.count,
      directory.fits(height: height, streamLength: streamLength)
    else { return nil }
    return directory
  }

  /// Whether the bands cover `height` rows, at least two of them, and the offsets rise from 2
  /// to before the Adler-32 of a zlib stream of `streamLength` bytes.
  func fits(height: Int, streamLength: Int) -> Bool {
    guard rowsPerBand >= 1, offsets.count >= 2,
      offsets.count == (height + rowsPerBand - 1) / rowsPerBand, offsets.first == 2,
      zip(offsets, offsets.dropFirst()).allSatisfy({ $0 < $1 }),
      let last = offsets.last, last < streamLength - 4
    else { return false }
    return true
  }

  private static func bigEndian(_ value: Int) -> [UInt8] {
    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
  }
}
