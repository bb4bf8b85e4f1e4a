/// What kind of change one region of a failing comparison is, with the parameters that say it:
/// the offset of a move, the main colour mapping of a recolour, the largest difference of noise.
///
/// `ChangeClassifier` computes it from the reference, the render and the comparison's
/// difference image, only for comparisons that failed (or changes a review shows).
public enum ChangeKind: Sendable, Hashable, CustomStringConvertible {
  /// The region's content equals the reference's shifted by (dx, dy): right and down positive.
  case moved(dx: Int, dy: Int)
  /// The same pixels are foreground, their colours mapped one to one; the main mapping.
  case recoloured(ColourMapping)
  /// Content where the reference has background (or transparency), standing apart: no other
  /// content of the reference stays inside the region.
  case added
  /// Background (or transparency) where the reference has content, and no other content of
  /// the render inside the region.
  case removed
  /// Every changed pixel is an anti-aliased edge pixel or within a few levels of the
  /// reference; the largest channel difference among them.
  case antiAliasingOrNoise(largestDifference: Int)
  /// The images differ in size; the region is an area only one of them covers, aligned
  /// top-left.
  case resized(actual: ImageSize, reference: ImageSize)
  /// Anything else.
  case changed

  /// The kind's stable name, as the review data, `--json` and the page's filter spell it.
  public var name: String {
    switch self {
    case .moved: "moved"
    case .recoloured: "recoloured"
    case .added: "added"
    case .removed: "removed"
    case .antiAliasingOrNoise: "antiAliasingOrNoise"
    case .resized: "resized"
    case .changed: "changed"
    }
  }

  /// A kind's name in a few words, without its parameters ("anti-aliasing or noise").
  static func shortName(_ name: String) -> String {
    name == "antiAliasingOrNoise" ? "anti-aliasing or noise" : name
  }

  /// Every name, in the order the page lists its filter.
  public static let names = [
    "moved", "recoloured", "added", "removed", "antiAliasingOrNoise", "resized", "changed",
  ]

  /// A few words with the parameters: "moved by (2, 1)", "recoloured #16A34A → #9333EA".
  public var description: String {
    switch self {
    case .moved(let dx, let dy): "moved by (\(dx), \(dy))"
    case .recoloured(let mapping): "recoloured \(mapping)"
    case .added: "added"
    case .removed: "removed"
    case .antiAliasingOrNoise(let largest):
      "anti-aliasing or noise only (largest difference \(largest))"
    case .resized(let actual, let reference): "resized to \(actual) from reference \(reference)"
    case .changed: "changed"
    }
  }
}

/// One colour of the reference and the colour the render has in its place.
public struct ColourMapping: Sendable, Hashable, CustomStringConvertible {
  /// The reference's colour.
  public var from: RGBAColor
  /// The render's colour at the same pixels.
  public var to: RGBAColor

  /// Creates a mapping.
  public init(from: RGBAColor, to: RGBAColor) {
    self.from = from
    self.to = to
  }

  /// `#16A34A → #9333EA`; colours that are not opaque carry their alpha (`#16A34A80`).
  public var description: String { "\(from.hex) → \(to.hex)" }
}

extension RGBAColor {
  /// `#RRGGBB`, or `#RRGGBBAA` when the colour is not opaque.
  public var hex: String {
    let channels = alpha == 255 ? [red, green, blue] : [red, green, blue, alpha]
    return "#"
      + channels.map { byte in
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
      }.joined()
  }
}

/// One changed region: where it is, how many of its pixels changed, and what kind of change.
public struct ChangedRegion: Sendable, Hashable, CustomStringConvertible {
  /// The smallest box around the region's differing pixels.
  public var box: PixelBox
  /// Pixels inside the box whose bytes differ (every pixel of an area only one image covers).
  public var changedPixelCount: Int
  /// What kind of change it is.
  public var kind: ChangeKind

  /// Creates a region.
  public init(box: PixelBox, changedPixelCount: Int, kind: ChangeKind) {
    self.box = box
    self.changedPixelCount = changedPixelCount
    self.kind = kind
  }

  /// "region x 10…58, y 4…19: moved by (2, 1)".
  public var description: String { "region \(box): \(kind)" }
}

/// The changed regions of a failing comparison, each with its kind.
public struct ChangeClassification: Sendable, Hashable {
  /// The regions, top to bottom.
  public var regions: [ChangedRegion]

  /// Creates a classification.
  public init(regions: [ChangedRegion]) {
    self.regions = regions
  }

  /// How many regions a failure message lists before it counts the rest.
  public static let listedRegionLimit = 3

  /// One short line per region, the largest first, at most `limit`, then "and N more
  /// regions"; empty when no region was found.
  /// - Parameter limit: How many regions to list.
  /// - Returns: The lines, without a trailing newline.
  public func lines(limit: Int = listedRegionLimit) -> [String] {
    let largestFirst = regions.enumerated().sorted { left, right in
      (left.element.changedPixelCount, right.offset)
        > (right.element.changedPixelCount, left.offset)
    }.map(\.element)
    var lines = largestFirst.prefix(limit).map(\.description)
    let rest = largestFirst.dropFirst(limit)
    guard !rest.isEmpty else { return lines }
    // A busy screen's other regions in one line, counted by kind, the most frequent first.
    var counts: [String: Int] = [:]
    for region in rest { counts[region.kind.name, default: 0] += 1 }
    let kinds = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map {
      "\($0.value) \(ChangeKind.shortName($0.key))"
    }
    let more = rest.count
    lines.append(
      "and \(more) more region\(more == 1 ? "" : "s") (\(kinds.joined(separator: ", ")))")
    return lines
  }
}
