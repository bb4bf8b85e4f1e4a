/// Byte surgery on PNG files, to build the files other tools leave behind: chunks removed, or
/// one file's image data under another's header and ancillary chunks.
public enum PNGChunks {
  /// One chunk: where it starts (its length field) and its type.
  public struct Chunk: Sendable {
    public var start: Int
    public var length: Int
    public var type: String
    /// Where the next chunk starts: length, type, data and CRC.
    public var end: Int { start + 12 + length }
  }

  /// The chunks of a PNG file, in order.
  public static func chunks(of png: [UInt8]) -> [Chunk] {
    var result: [Chunk] = []
    var offset = 8
    while offset + 12 <= png.count {
      let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
      let type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
      result.append(Chunk(start: offset, length: length, type: type))
      offset += 12 + length
    }
    return result
  }

  /// The file without its chunks of one type.
  public static func removing(_ type: String, from png: [UInt8]) -> [UInt8] {
    Array(png[0..<8])
      + chunks(of: png).filter { $0.type != type }.flatMap { png[$0.start..<$0.end] }
  }

  /// `target`'s chunks up to its image data (its digest chunk among them), then `source`'s image
  /// data and end: what a tool that rewrites pixels but copies unknown chunks leaves.
  public static func grafting(imageDataOf source: [UInt8], onto target: [UInt8]) -> [UInt8] {
    let head = chunks(of: target).prefix { $0.type != "IDAT" }
    let tail = chunks(of: source).drop { $0.type != "IDAT" }
    return Array(target[0..<8]) + head.flatMap { target[$0.start..<$0.end] }
      + tail.flatMap { source[$0.start..<$0.end] }
  }
}
