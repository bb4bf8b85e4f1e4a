import ReferenceImageCore
import RenderCorpus

/// The failing pairs the change-kinds benchmark classifies: screenshot-like pairs (text and
/// chart lines moved by a pixel inside fixed cards, 1% of pixels drifted, one colour replaced)
/// and every pair of the change-kind corpus (`ChangeKindCorpus`) tiled to the full size, so each
/// kind a test names is timed on as many of its changes as the image holds.
struct ChangeKindsPair {
  var label: String
  var image: RGBAImage
  var reference: RGBAImage
  /// The kinds a person names for every region, one label per kind; nil for the screenshot
  /// pairs, whose changes nobody labelled.
  var expected: Set<String>?

  /// The 2000×2000 pairs (of `side`): the three screenshot pairs, then the corpus tiled; each
  /// drawn when asked for, so that the run holds one pair of this size at a time.
  static func large(side: Int) -> [(label: String, make: () -> ChangeKindsPair)] {
    screenshotLabels.indices.map { index in
      (
        screenshotLabels[index],
        { screenshot(index, width: side, height: side, seed: 2026, driftSeed: 7) }
      )
    }
      + corpus().map { item in
        (tiledLabel(item, width: side, height: side), { tiled(item, width: side, height: side) })
      }
  }

  /// The pairs the 1,000 800×600 comparisons cycle through: ten screenshots each moved,
  /// drifted and recoloured, then every corpus pair tiled to 800×600.
  static func small() -> [ChangeKindsPair] {
    (0..<10).flatMap {
      screenshots(width: 800, height: 600, seed: UInt64($0), driftSeed: UInt64($0))
    }
      + corpus().map { tiled($0, width: 800, height: 600) }
  }

  private static func corpus() -> [ChangeKindCorpus.Case] {
    do {
      return try ChangeKindCorpus.cases()
    } catch {
      fatalError("the change-kind corpus could not be drawn: \(error)")
    }
  }

  static let screenshotLabels = [
    "screenshot: text and chart lines moved by a pixel inside fixed cards",
    "screenshot: 1% of pixels drifted", "screenshot: one colour replaced",
  ]

  private static func screenshots(width: Int, height: Int, seed: UInt64, driftSeed: UInt64)
    -> [ChangeKindsPair]
  {
    screenshotLabels.indices.map {
      screenshot($0, width: width, height: height, seed: seed, driftSeed: driftSeed)
    }
  }

  /// The screenshot pair `screenshotLabels[index]` names.
  private static func screenshot(
    _ index: Int, width: Int, height: Int, seed: UInt64, driftSeed: UInt64
  ) -> ChangeKindsPair {
    let reference = Screenshot(width: width, height: height, seed: seed).image
    let image =
      switch index {
      case 0: Screenshot(width: width, height: height, seed: seed, shift: 1).image
      case 1: RenderDrift.apply(to: reference, fraction: 0.01, seed: driftSeed)
      default: recoloured(reference)
      }
    return ChangeKindsPair(label: screenshotLabels[index], image: image, reference: reference)
  }

  /// Space between tiles: more than two cells of the regions' grid, so no change joins the
  /// next tile's in one region.
  static let tileGap = 40

  /// The case's pair drawn as often as it fits into an image of the size, each copy with its
  /// change, on the scenes' white background.
  private static func tiled(_ item: ChangeKindCorpus.Case, width: Int, height: Int)
    -> ChangeKindsPair
  {
    let (columns, rows) = tiles(of: item.reference.size, width: width, height: height)
    return ChangeKindsPair(
      label: tiledLabel(item, width: width, height: height),
      image: mosaic(item.image, columns: columns, rows: rows, width: width, height: height),
      reference: mosaic(item.reference, columns: columns, rows: rows, width: width, height: height),
      expected: item.expected)
  }

  private static func tiledLabel(_ item: ChangeKindCorpus.Case, width: Int, height: Int) -> String {
    let (columns, rows) = tiles(of: item.reference.size, width: width, height: height)
    return "corpus ×\(columns * rows): \(item.name)"
  }

  private static func tiles(of size: ImageSize, width: Int, height: Int) -> (Int, Int) {
    (
      max(1, (width + tileGap) / (size.width + tileGap)),
      max(1, (height + tileGap) / (size.height + tileGap))
    )
  }

  private static func mosaic(_ tile: RGBAImage, columns: Int, rows: Int, width: Int, height: Int)
    -> RGBAImage
  {
    var pixels = [UInt8](repeating: 0xFF, count: width * height * 4)
    let rowBytes = min(tile.width, width) * 4
    for row in 0..<rows {
      for column in 0..<columns {
        let left = column * (tile.width + tileGap)
        let top = row * (tile.height + tileGap)
        for y in 0..<min(tile.height, height - top) {
          let source = y * tile.width * 4
          let target = ((top + y) * width + left) * 4
          let count = min(rowBytes, (width - left) * 4)
          pixels.replaceSubrange(
            target..<target + count, with: tile.pixels[source..<source + count])
        }
      }
    }
    return try! RGBAImage(width: width, height: height, pixels: pixels)
  }

  /// The image with its most common non-background colour replaced by another.
  private static func recoloured(_ image: RGBAImage) -> RGBAImage {
    var counts: [UInt32: Int] = [:]
    image.pixels.withUnsafeBytes { bytes in
      for word in bytes.bindMemory(to: UInt32.self).prefix(200_000) {
        counts[word, default: 0] += 1
      }
    }
    let ranked = counts.sorted { $0.value > $1.value }.map(\.key)
    let target = ranked.count > 1 ? ranked[1] : ranked[0]
    var copy = image
    copy.withUnsafeMutablePixelBytes { bytes in
      let words = bytes.bindMemory(to: UInt32.self)
      for index in words.indices where words[index] == target {
        words[index] = 0xFF_EA_33_93  // #9333EA, little-endian RGBA
      }
    }
    return copy
  }
}
