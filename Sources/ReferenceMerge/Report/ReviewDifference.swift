import ReferenceImageCore

/// What a review card shows of a change: the exact comparison, its difference image as PNG,
/// and boxes around the changed regions, made in one pass over the pixels plus one encode.
package struct ReviewDifference: Sendable {
  /// The comparison of the new image with the old one.
  package var result: ComparisonResult
  /// The difference image, encoded.
  package var png: [UInt8]
  /// The difference image's size: the union of both sizes.
  package var size: ImageSize
  /// Boxes around the changed regions, [x, y, width, height], at most `ChangedRegions.limit`.
  package var regions: [[Int]]

  /// Difference images are made to be looked at once: zlib level 1 costs a fraction of the
  /// references' level 3 for files a little larger.
  static let encoder = PNGEncoder(setting: .fastest)

  /// Compares `image` with `reference` and draws, encodes and boxes their difference.
  /// - Parameters:
  ///   - image: The new image.
  ///   - reference: The old one.
  ///   - bands: Bands of rows to compare on every core; `nil` picks by size, 1 keeps one core
  ///     (for measuring the cost per image).
  /// - Throws: `PNGError` when the difference image cannot be encoded.
  package static func make(_ image: RGBAImage, _ reference: RGBAImage, bands: Int? = nil)
    throws(PNGError) -> ReviewDifference
  {
    let (result, difference) = ImageComparison.exact.compareWithDifferenceImage(
      image, to: reference, bound: .none, bands: bands)
    let regions: [[Int]]
    switch result.outcome {
    case .identical: regions = []
    case .withinBound(let found), .differs(let found):
      regions = ChangedRegions.boxes(in: difference, within: found.boundingBox)
    case .sizeMismatch:
      // No pixel count applies; every pixel of the union canvas only one image covers is red.
      regions = ChangedRegions.boxes(in: difference)
    }
    return ReviewDifference(
      result: result, png: try encoder.encode(difference), size: difference.size,
      regions: regions)
  }
}
