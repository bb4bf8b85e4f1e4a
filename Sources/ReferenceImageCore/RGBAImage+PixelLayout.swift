/// How a renderer lays out the four channels of one pixel in memory.
public enum ChannelOrder: Sendable, Hashable {
  /// Red, green, blue, alpha: PNG's order and `RGBAImage`'s own.
  case rgba
  /// Blue, green, red, alpha: Cairo's ARGB32 and CoreGraphics' little-endian 32-bit layouts.
  case bgra
  /// Alpha, red, green, blue.
  case argb
  /// Alpha, blue, green, red.
  case abgr

  /// Byte offsets of red, green, blue and alpha within one pixel.
  var offsets: (red: Int, green: Int, blue: Int, alpha: Int) {
    switch self {
    case .rgba: (0, 1, 2, 3)
    case .bgra: (2, 1, 0, 3)
    case .argb: (1, 2, 3, 0)
    case .abgr: (3, 2, 1, 0)
    }
  }
}

/// Whether colour channels are stored as-is or already multiplied by alpha.
public enum AlphaMode: Sendable, Hashable {
  /// Colour channels independent of alpha, as in PNG.
  case straight
  /// Colour channels multiplied by alpha, as Cairo, CoreGraphics and most compositors store them.
  case premultiplied
}

extension RGBAImage {
  /// Creates an image from the pixel buffer a renderer hands over, converting its layout.
  ///
  /// Cairo's `CAIRO_FORMAT_ARGB32` on a little-endian machine is `channelOrder: .bgra,
  /// alphaMode: .premultiplied` with `bytesPerRow` from `cairo_image_surface_get_stride`.
  /// - Parameters:
  ///   - width: The width in pixels.
  ///   - height: The height in pixels.
  ///   - bytesPerRow: The distance between rows in bytes; at least `width * 4`.
  ///   - channelOrder: The order of the four channels in memory.
  ///   - alphaMode: Whether colour channels are premultiplied by alpha.
  ///   - bytes: The buffer, at least `bytesPerRow * (height - 1) + width * 4` bytes.
  /// - Throws: `ImageError` when the size is invalid or the buffer too short for it.
  public init(
    width: Int, height: Int, bytesPerRow: Int, channelOrder: ChannelOrder,
    alphaMode: AlphaMode, bytes: UnsafeRawBufferPointer
  ) throws(ImageError) {
    try Self.validate(width: width, height: height)
    let needed = bytesPerRow * (height - 1) + width * 4
    guard bytesPerRow >= width * 4, bytes.count >= needed else {
      throw .bufferLengthMismatch(expected: max(needed, width * 4 * height), actual: bytes.count)
    }
    let (r, g, b, a) = channelOrder.offsets
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    pixels.withUnsafeMutableBufferPointer { out in
      for y in 0..<height {
        let row = y * bytesPerRow
        let outRow = y * width * 4
        for x in 0..<width {
          let source = row + x * 4
          let target = outRow + x * 4
          let alpha = bytes[source + a]
          var color = (bytes[source + r], bytes[source + g], bytes[source + b])
          if alphaMode == .premultiplied {
            color = (
              Self.unpremultiply(color.0, alpha), Self.unpremultiply(color.1, alpha),
              Self.unpremultiply(color.2, alpha)
            )
          }
          out[target] = color.0
          out[target + 1] = color.1
          out[target + 2] = color.2
          out[target + 3] = alpha
        }
      }
    }
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// Creates an image from a renderer's pixel buffer held in an array, converting its layout;
  /// the same as the initialiser that takes an `UnsafeRawBufferPointer`, without the pointer.
  ///
  /// A CoreGraphics bitmap context made with `premultipliedFirst` and `byteOrder32Little` holds
  /// `channelOrder: .bgra, alphaMode: .premultiplied`, with its own `bytesPerRow`.
  /// - Parameters:
  ///   - width: The width in pixels.
  ///   - height: The height in pixels.
  ///   - bytesPerRow: The distance between rows in bytes; at least `width * 4`.
  ///   - channelOrder: The order of the four channels in memory.
  ///   - alphaMode: Whether colour channels are premultiplied by alpha.
  ///   - bytes: The buffer, at least `bytesPerRow * (height - 1) + width * 4` bytes.
  /// - Throws: `ImageError` when the size is invalid or the buffer too short for it.
  public init(
    width: Int, height: Int, bytesPerRow: Int, channelOrder: ChannelOrder,
    alphaMode: AlphaMode, bytes: [UInt8]
  ) throws(ImageError) {
    let converted = bytes.withUnsafeBytes { buffer in
      Result { () throws(ImageError) in
        try RGBAImage(
          width: width, height: height, bytesPerRow: bytesPerRow, channelOrder: channelOrder,
          alphaMode: alphaMode, bytes: buffer)
      }
    }
    self = try converted.get()
  }

  /// Undoes premultiplication with rounding; a fully transparent pixel becomes transparent black,
  /// and a channel larger than alpha (invalid premultiplied data) saturates at 255.
  @inline(__always)
  static func unpremultiply(_ channel: UInt8, _ alpha: UInt8) -> UInt8 {
    if alpha == 255 { return channel }
    if alpha == 0 { return 0 }
    let value = (Int(channel) * 255 + Int(alpha) / 2) / Int(alpha)
    return UInt8(min(value, 255))
  }
}
