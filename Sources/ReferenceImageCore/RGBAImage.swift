/// An image of 8-bit RGBA pixels: straight (not premultiplied) alpha, sRGB, row-major,
/// four bytes per pixel in the order red, green, blue, alpha, with no padding between rows.
///
/// `RGBAImage` is a value: copies share storage until one of them is mutated.
public struct RGBAImage: Sendable, Hashable {
  /// The width in pixels; at least 1.
  public let width: Int
  /// The height in pixels; at least 1.
  public let height: Int
  /// The pixel bytes, `width * height * 4` of them, row after row.
  public internal(set) var pixels: [UInt8]

  /// The largest width or height any initialiser accepts.
  public static let maximumDimension = 1 << 16
  /// The largest pixel count any initialiser accepts (256 megapixels, 1 GiB of RGBA).
  public static let maximumPixelCount = 1 << 28

  /// Creates an image from tightly packed RGBA bytes.
  /// - Parameters:
  ///   - width: The width in pixels.
  ///   - height: The height in pixels.
  ///   - pixels: `width * height * 4` bytes, red, green, blue, straight alpha.
  /// - Throws: `ImageError.invalidSize` or `ImageError.bufferLengthMismatch`.
  public init(width: Int, height: Int, pixels: [UInt8]) throws(ImageError) {
    try Self.validate(width: width, height: height)
    guard pixels.count == width * height * 4 else {
      throw .bufferLengthMismatch(expected: width * height * 4, actual: pixels.count)
    }
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// Creates an image filled with one colour; handy for fixtures and placeholders.
  /// - Parameters:
  ///   - width: The width in pixels.
  ///   - height: The height in pixels.
  ///   - color: The colour of every pixel.
  /// - Throws: `ImageError.invalidSize` when a dimension is zero, negative or absurd.
  public init(width: Int, height: Int, color: RGBAColor) throws(ImageError) {
    try Self.validate(width: width, height: height)
    self.width = width
    self.height = height
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    pixels.withUnsafeMutableBytes { bytes in
      let words = bytes.bindMemory(to: UInt32.self)
      words.initialize(repeating: color.packed)
    }
    self.pixels = pixels
  }

  /// The number of pixels, `width * height`.
  public var pixelCount: Int { width * height }

  /// The colour at a position; `x` and `y` must lie inside the image.
  public subscript(x: Int, y: Int) -> RGBAColor {
    get {
      precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside")
      let offset = (y * width + x) * 4
      return RGBAColor(
        red: pixels[offset], green: pixels[offset + 1], blue: pixels[offset + 2],
        alpha: pixels[offset + 3])
    }
    set {
      precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside")
      let offset = (y * width + x) * 4
      pixels[offset] = newValue.red
      pixels[offset + 1] = newValue.green
      pixels[offset + 2] = newValue.blue
      pixels[offset + 3] = newValue.alpha
    }
  }

  /// Gives mutable access to the pixel bytes, for renderers that draw in place.
  /// - Parameter body: Receives the `width * height * 4` bytes; it must not let them escape.
  /// - Returns: What `body` returns.
  public mutating func withUnsafeMutablePixelBytes<Result>(
    _ body: (UnsafeMutableRawBufferPointer) throws -> Result
  ) rethrows -> Result {
    try pixels.withUnsafeMutableBytes(body)
  }

  static func validate(width: Int, height: Int) throws(ImageError) {
    guard width > 0, height > 0, width <= maximumDimension, height <= maximumDimension,
      width * height <= maximumPixelCount
    else {
      throw .invalidSize(width: width, height: height)
    }
  }
}

/// One RGBA colour with straight alpha.
public struct RGBAColor: Sendable, Hashable {
  /// The red channel.
  public var red: UInt8
  /// The green channel.
  public var green: UInt8
  /// The blue channel.
  public var blue: UInt8
  /// The alpha channel: 0 transparent, 255 opaque.
  public var alpha: UInt8

  /// Creates a colour from its four channels.
  /// - Parameters:
  ///   - red: Red, 0–255.
  ///   - green: Green, 0–255.
  ///   - blue: Blue, 0–255.
  ///   - alpha: Alpha, 0–255; opaque by default.
  public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  /// Opaque black.
  public static let black = RGBAColor(red: 0, green: 0, blue: 0)
  /// Opaque white.
  public static let white = RGBAColor(red: 255, green: 255, blue: 255)
  /// Opaque red.
  public static let red = RGBAColor(red: 255, green: 0, blue: 0)
  /// Fully transparent black.
  public static let clear = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)

  /// The four channels as one word in memory order (RGBA bytes), for fast fills.
  var packed: UInt32 {
    UInt32(
      littleEndian: UInt32(red) | UInt32(green) << 8 | UInt32(blue) << 16 | UInt32(alpha) << 24)
  }
}

/// Why an image could not be created.
public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A dimension is zero, negative, or beyond `RGBAImage.maximumDimension` or the pixel limit.
  case invalidSize(width: Int, height: Int)
  /// The buffer does not hold exactly the bytes the dimensions need.
  case bufferLengthMismatch(expected: Int, actual: Int)

  public var description: String {
    switch self {
    case .invalidSize(let width, let height):
      return
        "invalid image size \(width)×\(height): each side must be 1…\(RGBAImage.maximumDimension) "
        + "and the area at most \(RGBAImage.maximumPixelCount) pixels"
    case .bufferLengthMismatch(let expected, let actual):
      return
        "pixel buffer holds \(actual) bytes but the size needs \(expected) (width × height × 4)"
    }
  }
}
