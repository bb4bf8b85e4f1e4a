/// A rectangle of pixels, inclusive on both ends.
public struct PixelBox: Sendable, Hashable, CustomStringConvertible {
  /// The leftmost column.
  public var minX: Int
  /// The topmost row.
  public var minY: Int
  /// The rightmost column.
  public var maxX: Int
  /// The bottom row.
  public var maxY: Int

  /// Creates a box from its inclusive bounds.
  public init(minX: Int, minY: Int, maxX: Int, maxY: Int) {
    self.minX = minX
    self.minY = minY
    self.maxX = maxX
    self.maxY = maxY
  }

  public var description: String { "x \(minX)…\(maxX), y \(minY)…\(maxY)" }
}

/// What a comparison strategy found between two images of the same size.
public struct PixelDifferences: Sendable, Hashable {
  /// Pixels the strategy counts as different.
  public var differingPixelCount: Int
  /// Pixels that differ in their bytes but that the strategy tolerates (within the channel
  /// tolerance or perceptual threshold, or detected as anti-aliasing).
  public var toleratedPixelCount: Int
  /// Of the tolerated pixels, those a perceptual comparison detected as anti-aliasing; the rest
  /// are within its threshold (always 0 for the other strategies, and with
  /// `includeAntiAliasing`).
  public var antiAliasedPixelCount: Int
  /// Of the tolerated pixels, those that differ where they are but match a pixel of the other
  /// image nearby (shift tolerance); 0 without it.
  public var shiftedPixelCount: Int
  /// Every compared pixel: the image's, less those of ignored regions. A bound given as a
  /// fraction is a fraction of these.
  public var totalPixelCount: Int
  /// The pixels of ignored regions, which were not compared; 0 without any.
  public var ignoredPixelCount: Int
  /// The largest difference of any channel between any two pixels at the same position
  /// (0 for identical images, up to 255).
  public var largestChannelDifference: Int
  /// The smallest box holding every differing pixel; nil when none differs.
  public var boundingBox: PixelBox?

  /// Creates a record of differences.
  /// - Parameters:
  ///   - differingPixelCount: Pixels counted as different.
  ///   - toleratedPixelCount: Pixels that differ but are tolerated, for every reason.
  ///   - antiAliasedPixelCount: Of the tolerated ones, those detected as anti-aliasing.
  ///   - shiftedPixelCount: Of the tolerated ones, those that matched only shifted.
  ///   - totalPixelCount: Every compared pixel.
  ///   - ignoredPixelCount: The pixels of ignored regions.
  ///   - largestChannelDifference: The largest difference of any channel, 0–255.
  ///   - boundingBox: The box around the differing pixels; nil when none differs.
  public init(
    differingPixelCount: Int, toleratedPixelCount: Int = 0, antiAliasedPixelCount: Int = 0,
    shiftedPixelCount: Int = 0, totalPixelCount: Int, ignoredPixelCount: Int = 0,
    largestChannelDifference: Int, boundingBox: PixelBox?
  ) {
    self.differingPixelCount = differingPixelCount
    self.toleratedPixelCount = toleratedPixelCount
    self.antiAliasedPixelCount = antiAliasedPixelCount
    self.shiftedPixelCount = shiftedPixelCount
    self.totalPixelCount = totalPixelCount
    self.ignoredPixelCount = ignoredPixelCount
    self.largestChannelDifference = largestChannelDifference
    self.boundingBox = boundingBox
  }

  /// The differences of several bands of the same image, as one scan of all of them would count
  /// them: every figure is a sum, a maximum or a union, so the order does not matter.
  static func merged(_ bands: [PixelDifferences], totalPixelCount: Int) -> PixelDifferences {
    var merged = identical(totalPixelCount: totalPixelCount)
    for band in bands {
      merged.differingPixelCount += band.differingPixelCount
      merged.toleratedPixelCount += band.toleratedPixelCount
      merged.antiAliasedPixelCount += band.antiAliasedPixelCount
      merged.shiftedPixelCount += band.shiftedPixelCount
      merged.largestChannelDifference = max(
        merged.largestChannelDifference, band.largestChannelDifference)
      if let box = band.boundingBox {
        merged.boundingBox =
          merged.boundingBox.map { union in
            PixelBox(
              minX: min(union.minX, box.minX), minY: min(union.minY, box.minY),
              maxX: max(union.maxX, box.maxX), maxY: max(union.maxY, box.maxY))
          } ?? box
      }
    }
    return merged
  }

  /// The result for two identical images.
  static func identical(totalPixelCount: Int) -> PixelDifferences {
    PixelDifferences(
      differingPixelCount: 0, totalPixelCount: totalPixelCount, largestChannelDifference: 0,
      boundingBox: nil)
  }
}
