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
  /// Boxes around the changed regions, [x, y, width, height], one per connected change.
  package var regions: [[Int]]
  /// What kind of change each region is, one per box, in the same order.
  package var kinds: [ChangedRegion]
  /// What the change is, without where: cards with the same one changed the same way.
  package var fingerprint: ChangeFingerprint?

  /// Difference images are made to be looked at once: zlib level 1.
  static let encoder = PNGEncoder(setting: .fastest)

  /// The colours of an exact comparison's difference image: the 64 greys of dimmed matching
  /// pixels (index = grey), the red of differing ones (index 64), then the 64 blues of ignored
  /// regions (index 65 + grey, blue = 64 + grey).
  static let palette: [RGBAColor] = {
    let greys = (0..<64).map { RGBAColor(red: UInt8($0), green: UInt8($0), blue: UInt8($0)) }
    let blues = (0..<64).map { RGBAColor(red: 0, green: 0, blue: UInt8(64 + $0)) }
    return greys + [RGBAColor(red: 255, green: 0, blue: 0)] + blues
  }()

  /// The difference image as a palette PNG, a quarter of the bytes to compress; as RGBA when
  /// a pixel is outside the palette. The palette makes the whole difference step cost less
  /// than half of what it costs as RGBA (`Documentation/Benchmarks.md`, "Review page").
  static func encode(_ difference: RGBAImage) throws(PNGError) -> [UInt8] {
    let red = DifferenceColor.differing
    var outside = false
    let indices = difference.pixels.withUnsafeBytes { bytes in
      let words = bytes.bindMemory(to: UInt32.self)
      return [UInt8](unsafeUninitializedCapacity: words.count) { output, initialized in
        for index in 0..<words.count {
          let word = words[index]
          let grey = word & 0xFF
          if word == grey &* 0x01_0101 | 0xFF00_0000 && grey < 64 {
            output[index] = UInt8(truncatingIfNeeded: grey)
          } else if word == red {
            output[index] = 64
          } else if word & 0xFFC0_FFFF == 0xFF40_0000 {
            // Alpha 255, no red or green, blue 64–127: an ignored pixel.
            output[index] = UInt8(truncatingIfNeeded: 65 &+ (word >> 16 & 0xFF) &- 64)
          } else {
            output[index] = 0
            outside = true
          }
        }
        initialized = words.count
      }
    }
    if outside { return try encoder.encode(difference) }
    return try encoder.encodeIndexed(
      width: difference.width, height: difference.height, palette: palette, indices: indices)
  }

  /// Compares `image` with `reference` and draws, encodes and boxes their difference.
  /// - Parameters:
  ///   - image: The new image.
  ///   - reference: The old one.
  ///   - comparison: The comparison the image's test used, so the counts and the difference
  ///     image agree with its failure message; exact unless given.
  ///   - bands: Bands of rows to compare on every core; `nil` picks by size, 1 keeps one core
  ///     (for measuring the cost per image).
  /// - Throws: `PNGError` when the difference image cannot be encoded.
  package static func make(
    _ image: RGBAImage, _ reference: RGBAImage, comparison: ComparisonRecord? = nil,
    bands: Int? = nil
  ) throws(PNGError) -> ReviewDifference {
    let rule = comparison?.comparison ?? .exact
    let (result, difference) = rule.compareWithDifferenceImage(
      image, to: reference, bound: comparison?.bound ?? .none, bands: bands)
    let regions: [[Int]]
    switch result.outcome {
    case .identical: regions = []
    case .withinBound(let found), .differs(let found):
      regions = ChangedRegions.boxes(in: difference, within: found.boundingBox)
    case .sizeMismatch:
      // No pixel count applies. The areas only one image covers are boxed as they are (every
      // pixel of them is red), then the common area's changes, aligned top-left.
      let strips = ChangeClassifier.resizedRegions(image, reference).map(\.box)
      regions =
        strips.map { [$0.minX, $0.minY, $0.maxX - $0.minX + 1, $0.maxY - $0.minY + 1] }
        + ChangedRegions.boxes(
          in: difference, within: ChangeClassifier.commonBox(image, reference))
    }
    // What the comparison saw: the ignored regions change neither a kind nor a group.
    let compared = rule.asCompared(image, reference: reference)
    let kinds = ChangeClassifier.classify(
      compared, reference: reference, differenceImage: difference, boxes: regions)
    return ReviewDifference(
      result: result, png: try encode(difference), size: difference.size,
      regions: regions, kinds: kinds,
      fingerprint: ChangeFingerprint.of(kinds, image: compared, reference: reference))
  }
}
