/// The chunk structure of a PNG file, walked without inflating anything: where each chunk's
/// length, type, data and CRC sit. It is the one place that reads PNG framing by hand.
package struct PNGChunks {
  /// One chunk: its four-letter type and the byte ranges it occupies in the file.
  package struct Chunk {
    /// The type as a big-endian word, e.g. `0x4944_4154` for `IDAT`.
    package var type: UInt32
    /// From the length field through the CRC.
    package var whole: Range<Int>
    /// The data between the type and the CRC.
    package var data: Range<Int>
  }

  /// The chunks from IHDR through IEND, in file order.
  package var chunks: [Chunk]

  /// Walks the chunks of a file.
  /// - Parameter bytes: The PNG bytes.
  /// - Returns: `nil` unless the file has the PNG signature, starts with IHDR and every chunk
  ///   up to IEND lies inside the data; bytes after IEND are ignored, as decoders do.
  package init?(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count >= 8, bytes.starts(with: PNGFileHeader.signature) else { return nil }
    var chunks: [Chunk] = []
    var offset = 8
    while true {
      guard bytes.count - offset >= 12 else { return nil }
      let length = Int(Self.bigEndianWord(bytes, at: offset))
      // The PNG format limits chunk lengths to 2^31 - 1.
      guard length < 1 << 31, bytes.count - offset - 12 >= length else { return nil }
      let type = Self.bigEndianWord(bytes, at: offset + 4)
      let dataStart = offset + 8
      chunks.append(
        Chunk(
          type: type, whole: offset..<(dataStart + length + 4),
          data: dataStart..<(dataStart + length)))
      offset = dataStart + length + 4
      if type == Self.iend { break }
    }
    guard chunks[0].type == Self.ihdr, chunks[0].data.count == 13 else { return nil }
    self.chunks = chunks
  }

  /// Width and height from IHDR, which `init` found first, right after the signature.
  package func size(in bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int) {
    PNGFileHeader.declaredSize(bytes)
  }

  /// The complete bytes of a chunk: length, type, data and CRC.
  package static func encode(type: UInt32, data: [UInt8]) -> [UInt8] {
    var typeAndData = bigEndianBytes(type)
    typeAndData += data
    return bigEndianBytes(UInt32(data.count)) + typeAndData
      + bigEndianBytes(CRC32.checksum(typeAndData))
  }

  /// Whether a chunk's CRC matches its type and data.
  package static func hasValidCRC(_ chunk: Chunk, in bytes: UnsafeRawBufferPointer) -> Bool {
    let typeAndData = UnsafeRawBufferPointer(
      rebasing: bytes[(chunk.data.lowerBound - 4)..<chunk.data.upperBound])
    return CRC32.checksum(typeAndData) == bigEndianWord(bytes, at: chunk.data.upperBound)
  }

  /// A four-letter chunk type as a big-endian word.
  package static func type(_ name: StaticString) -> UInt32 {
    precondition(name.utf8CodeUnitCount == 4, "chunk types have four letters")
    return name.withUTF8Buffer { letters in
      letters.reduce(0) { word, letter in word << 8 | UInt32(letter) }
    }
  }

  package static let ihdr = type("IHDR")
  package static let idat = type("IDAT")
  package static let iend = type("IEND")

  package static func bigEndianWord(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
    (offset..<(offset + 4)).reduce(0) { word, index in word << 8 | UInt32(bytes[index]) }
  }

  private static func bigEndianBytes(_ word: UInt32) -> [UInt8] {
    [
      UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
      UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word),
    ]
  }
}

/// The CRC-32 of the PNG format (ISO 3309, the one zlib computes), for the few small chunks
/// written here; libspng checks and writes the CRCs of everything else.
package enum CRC32 {
  package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
    ~bytes.reduce(UInt32.max) { crc, byte in
      table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
    }
  }

  private static let table: [UInt32] = (0..<256).map { index in
    (0..<8).reduce(UInt32(index)) { crc, _ in
      crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1
    }
  }
}
