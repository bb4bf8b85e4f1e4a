/// The first 24 bytes of every PNG file, read by hand: the signature, then the IHDR chunk's
/// length, type, width and height. The one place that knows where those bytes sit.
package enum PNGFileHeader {
  /// The eight bytes every PNG file starts with.
  package static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  /// The bytes `size(of:)` reads: the signature, IHDR's length and type, width and height.
  package static let byteCount = 24

  /// The width and height IHDR declares, read without decoding.
  /// - Parameter bytes: The start of a PNG file (more is fine).
  /// - Returns: nil unless the bytes start with the signature and an IHDR chunk.
  package static func size(of bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
    guard bytes.count >= byteCount, bytes.starts(with: signature),
      bytes[12..<16].elementsEqual("IHDR".utf8)
    else { return nil }
    return declaredSize(bytes)
  }

  /// `size(of:)` for an array of bytes.
  package static func size(of bytes: [UInt8]) -> (width: Int, height: Int)? {
    bytes.withUnsafeBytes { size(of: $0) }
  }

  /// The width and height fields where IHDR keeps them, without checking what precedes them.
  /// - Parameter bytes: At least `byteCount` bytes, from the start of a PNG file.
  package static func declaredSize(_ bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int) {
    precondition(bytes.count >= byteCount, "a PNG header has \(byteCount) bytes")
    return (Int(bigEndianWord(bytes, at: 16)), Int(bigEndianWord(bytes, at: 20)))
  }

  private static func bigEndianWord(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
    (offset..<(offset + 4)).reduce(0) { word, index in word << 8 | UInt32(bytes[index]) }
  }
}
