import ReferenceImageCore

/// A drawing surface over an `RGBAImage` with anti-aliased shapes, gradients and text.
///
/// Every shape computes, for each pixel it may touch, a coverage between 0 and 1 (the share of
/// the pixel the shape covers, from exact areas for rectangles and signed distances for curves),
/// then blends its paint source-over in straight alpha. Only `+ - * /`, `sqrt`, `floor`, `ceil`
/// and rounding run on `Double`s, in a fixed order, so every IEEE 754 machine draws the same
/// bytes; nothing reads the clock, a random source or the locale.
public struct Canvas: Sendable {
  /// The pixels drawn so far.
  public private(set) var image: RGBAImage
  /// Drawing outside this rectangle leaves pixels untouched; `nil` allows the whole canvas.
  public var clipRect: Rect?

  /// Creates a canvas filled with one colour.
  /// - Parameters:
  ///   - width: The width in pixels.
  ///   - height: The height in pixels.
  ///   - background: The starting colour of every pixel; transparent by default.
  /// - Throws: `ImageError.invalidSize` when a dimension is zero, negative or absurd.
  public init(width: Int, height: Int, background: RGBAColor = .clear) throws(ImageError) {
    image = try RGBAImage(width: width, height: height, color: background)
  }

  /// Creates a canvas that draws over an existing image.
  /// - Parameter image: The starting pixels.
  public init(image: RGBAImage) {
    self.image = image
  }

  /// The width in pixels.
  public var width: Int { image.width }
  /// The height in pixels.
  public var height: Int { image.height }

  /// Blends `paint` into every pixel of `bounds` by the coverage `coverage(x, y)` returns for
  /// the pixel whose top-left corner is `(x, y)`; the one place pixels change.
  mutating func fill(bounds: Rect, paint: Paint, coverage: (Int, Int) -> Double) {
    let clip = clipRect ?? Rect(x: 0, y: 0, width: Double(width), height: Double(height))
    let left = max(bounds.x, clip.x, 0)
    let top = max(bounds.y, clip.y, 0)
    let right = min(bounds.maxX, clip.maxX, Double(width))
    let bottom = min(bounds.maxY, clip.maxY, Double(height))
    // The negated comparison also rejects NaN, which would trap in the Int conversions below.
    guard left < right, top < bottom else { return }
    let x0 = Int(left.rounded(.down))
    let x1 = Int(right.rounded(.up))
    let y0 = Int(top.rounded(.down))
    let y1 = Int(bottom.rounded(.up))
    let stride = width
    image.withUnsafeMutablePixelBytes { bytes in
      for y in y0..<y1 {
        let clipY = Self.overlap(Double(y), clip.y, clip.maxY)
        for x in x0..<x1 {
          let shapeCoverage = coverage(x, y)
          guard shapeCoverage > 0 else { continue }
          let amount = min(shapeCoverage, 1) * clipY * Self.overlap(Double(x), clip.x, clip.maxX)
          guard amount > 0 else { continue }
          let color = paint.color(at: Point(x: Double(x) + 0.5, y: Double(y) + 0.5))
          Self.blend(color, amount, into: bytes, at: (y * stride + x) * 4)
        }
      }
    }
  }

  /// How much of the unit interval starting at `start` lies between `low` and `high`.
  static func overlap(_ start: Double, _ low: Double, _ high: Double) -> Double {
    max(0, min(start + 1, high) - max(start, low))
  }

  /// Source-over in straight alpha: `out = src·a + dst·(1 − a)`, weighted by each alpha.
  static func blend(
    _ color: RGBAColor, _ coverage: Double, into bytes: UnsafeMutableRawBufferPointer,
    at offset: Int
  ) {
    let sourceAlpha = Double(color.alpha) / 255 * coverage
    guard sourceAlpha > 0 else { return }
    let destinationAlpha = Double(bytes[offset + 3]) / 255
    let destinationWeight = destinationAlpha * (1 - sourceAlpha)
    let outAlpha = sourceAlpha + destinationWeight
    func channel(_ source: UInt8, _ index: Int) -> UInt8 {
      byte(
        (Double(source) * sourceAlpha + Double(bytes[offset + index]) * destinationWeight)
          / outAlpha)
    }
    bytes[offset] = channel(color.red, 0)
    bytes[offset + 1] = channel(color.green, 1)
    bytes[offset + 2] = channel(color.blue, 2)
    bytes[offset + 3] = byte(outAlpha * 255)
  }

  /// Rounds half up and clamps to 0…255; IEEE rounding, the same on every machine.
  static func byte(_ value: Double) -> UInt8 {
    guard value > 0 else { return 0 }
    return value >= 255 ? 255 : UInt8((value + 0.5).rounded(.down))
  }

  /// Coverage of a pixel whose centre lies `distance` outside a shape's edge (negative inside):
  /// a one-pixel-wide ramp, the box-filter approximation of the exact area.
  static func coverage(distance: Double) -> Double {
    min(max(0.5 - distance, 0), 1)
  }
}
