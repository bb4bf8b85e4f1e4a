import CLibDeflate
import CSpng

// Chunks between the image data and IEND, judged as libspng judges them, for the fast path.
extension PNGDecoder {
  /// The indices of the IDAT chunks, when there are some and they are consecutive.
  static func imageDataChunks(_ chunks: PNGChunks) -> Range<Int>? {
    let all = chunks.chunks
    guard let first = all.firstIndex(where: { $0.type == PNGChunks.idat }) else { return nil }
    let end = all[first...].firstIndex { $0.type != PNGChunks.idat } ?? all.count
    guard !all[end...].contains(where: { $0.type == PNGChunks.idat }) else { return nil }
    return first..<end
  }

  /// Whether libspng accepts the chunks between the image data and IEND (ImageMagick writes
  /// its `tEXt` dates there), judged exactly as it judges them in the real file: libspng
  /// decodes a stand-in with the same chunks around a 1 × 1 image of the same colour type, and
  /// reads on to IEND. Nothing to check when IEND follows the image data, as in most files.
  func chunksAfterImageDataAreValid(
    _ chunks: PNGChunks, _ bytes: UnsafeRawBufferPointer, header: FastPathHeader
  ) -> Bool {
    guard let idat = Self.imageDataChunks(chunks) else { return false }
    let all = chunks.chunks
    guard idat.upperBound < all.count - 1 else { return true }
    let standIn = Self.standIn(
      chunks, bytes, imageData: idat, rowBytes: (header.channels * header.bitDepth + 7) / 8)
    let outcome: Bool? = try? standIn.withUnsafeBytes { file throws(PNGError) in
      try decode(file) { context, _ throws(PNGError) in
        var pixel = [UInt8](repeating: 0, count: 4)
        let status = pixel.withUnsafeMutableBytes { buffer in
          spng_decode_image(
            context.pointer, buffer.baseAddress, buffer.count, Int32(SPNG_FMT_RGBA8.rawValue),
            Int32(SPNG_DECODE_TRNS.rawValue))
        }
        return status == 0 && spng_decode_chunks(context.pointer) == 0
      }
    }
    return outcome == true
  }

  /// The file with IHDR made 1 × 1 and its image data replaced by one stored row.
  private static func standIn(
    _ chunks: PNGChunks, _ bytes: UnsafeRawBufferPointer, imageData: Range<Int>, rowBytes: Int
  ) -> [UInt8] {
    let all = chunks.chunks
    var file = Array(bytes[0..<8])
    var header = Array(bytes[all[0].data])
    header.replaceSubrange(0..<8, with: [0, 0, 0, 1, 0, 0, 0, 1])
    file += PNGChunks.encode(type: PNGChunks.ihdr, data: header)
    for chunk in all[1..<imageData.lowerBound] { file += bytes[chunk.whole] }
    let row = [UInt8](repeating: 0, count: 1 + rowBytes)
    let adler = row.withUnsafeBytes { libdeflate_adler32(1, $0.baseAddress, $0.count) }
    // zlib header, one final stored block of the row, Adler-32.
    let length = UInt16(row.count)
    var stream: [UInt8] = [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8)]
    stream += [UInt8(~length & 0xFF), UInt8(~length >> 8)] + row
    stream += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: adler >> $0) }
    file += PNGChunks.encode(type: PNGChunks.idat, data: stream)
    for chunk in all[imageData.upperBound...] { file += bytes[chunk.whole] }
    return file
  }
}
