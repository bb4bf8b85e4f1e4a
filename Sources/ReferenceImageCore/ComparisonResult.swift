/// The verdict of comparing an image with its reference.
public struct ComparisonResult: Sendable, Hashable, CustomStringConvertible {
  /// What was found.
  public enum Outcome: Sendable, Hashable {
    /// The pixels are byte-for-byte identical.
    case identical
    /// Some pixels differ, but no more than the bound allows.
    case withinBound(PixelDifferences)
    /// More pixels differ than the bound allows.
    case differs(PixelDifferences)
    /// The images have different sizes, so no pixel was compared.
    case sizeMismatch(actual: ImageSize, reference: ImageSize)
  }

  /// What was found.
  public var outcome: Outcome
  /// The differing pixels the bound allowed (0 for a size mismatch).
  public var allowedDifferingPixels: Int
  /// The strategy's name, for messages.
  public var comparisonName: String
  /// The bound the differing pixels were held to.
  public var bound: DifferenceBound
  /// What the strategy counted as a differing pixel, for the description to say so.
  let criterion: ImageComparison.Criterion
  /// The ignored regions and shift tolerance, for the description to say what they did.
  let options: ComparisonOptions

  init(
    outcome: Outcome, allowedDifferingPixels: Int, comparisonName: String,
    criterion: ImageComparison.Criterion, bound: DifferenceBound,
    options: ComparisonOptions = ComparisonOptions()
  ) {
    self.outcome = outcome
    self.allowedDifferingPixels = allowedDifferingPixels
    self.comparisonName = comparisonName
    self.criterion = criterion
    self.bound = bound
    self.options = options
  }

  /// Whether the image passes: identical, or differing within the bound.
  public var passed: Bool {
    switch outcome {
    case .identical, .withinBound: true
    case .differs, .sizeMismatch: false
    }
  }

  /// The differences found, nil for identical images and size mismatches.
  public var differences: PixelDifferences? {
    switch outcome {
    case .withinBound(let differences), .differs(let differences): differences
    case .identical, .sizeMismatch: nil
    }
  }

  /// One sentence with the numbers a person needs, saying once what was counted, what was
  /// tolerated and why, for example "37 of 480,000 pixels differ beyond the perceptual threshold
  /// 0.1 (allowed: 480, requiredAccuracy 0.999), largest channel difference 212, within x 10…58,
  /// y 4…19; 795 more differ but were tolerated as anti-aliasing". With ignored regions the
  /// count is of the compared pixels ("of 470,000 compared pixels") and the sentence ends with
  /// how many were ignored; with shift tolerance it says how many matched only shifted.
  public var description: String {
    switch outcome {
    case .identical:
      return "image is identical to reference"
    case .sizeMismatch(let actual, let reference):
      return "image size \(actual) differs from reference size \(reference)"
    case .withinBound(let found), .differs(let found):
      let counted = found.differingPixelCount
      let compared = found.ignoredPixelCount > 0 ? "compared pixels" : "pixels"
      var text =
        "\(grouped(counted)) of \(grouped(found.totalPixelCount)) \(compared) "
        + "\(counted == 1 ? "differs" : "differ") \(criterion.countedPhrase) "
        + "(allowed: \(grouped(allowedDifferingPixels))\(boundPhrase)), "
        + "largest channel difference \(found.largestChannelDifference)"
      if let box = found.boundingBox { text += ", within \(box)" }
      var unshifted = found
      unshifted.toleratedPixelCount -= found.shiftedPixelCount
      if unshifted.toleratedPixelCount > 0 {
        text += "; " + criterion.toleratedClause(unshifted)
      }
      if found.shiftedPixelCount > 0 {
        let shifted = found.shiftedPixelCount
        text +=
          "; \(grouped(shifted)) more \(shifted == 1 ? "differs" : "differ") but only matched "
          + "shifted by at most \(options.shiftTolerance) pixel"
          + "\(options.shiftTolerance == 1 ? "" : "s") (shift tolerance)"
      }
      if found.ignoredPixelCount > 0 {
        let regions = options.ignoredRegions.count
        let ignored = found.ignoredPixelCount
        text +=
          "; \(grouped(ignored)) pixel\(ignored == 1 ? "" : "s") in \(regions) ignored "
          + "region\(regions == 1 ? "" : "s") \(ignored == 1 ? "was" : "were") not compared"
      }
      return text
    }
  }

  /// The share of compared pixels that differ but were tolerated (by the channel tolerance,
  /// the perceptual threshold, anti-aliasing or a shift), 0 to 1: what a passing test lets
  /// drift before it fails. 0 for identical images and size mismatches.
  public var toleratedFraction: Double {
    guard let found = differences, found.totalPixelCount > 0 else { return 0 }
    return Double(found.toleratedPixelCount + found.differingPixelCount)
      / Double(found.totalPixelCount)
  }

  /// The bound, when the allowed count alone does not say where it came from.
  private var boundPhrase: String {
    switch bound {
    case .requiredAccuracy(let accuracy): ", requiredAccuracy \(accuracy)"
    case .maximumDifferingPixels: ""
    }
  }
}

extension ImageComparison.Criterion {
  /// What the differing pixels differ by, after "37 of 480,000 pixels differ".
  var countedPhrase: String {
    switch self {
    case .exact: "in any channel"
    case .tolerance(let tolerance): "by more than \(tolerance) in a channel"
    case .perceptual(let threshold, let includeAntiAliasing):
      "beyond the perceptual threshold \(threshold)"
        + (includeAntiAliasing ? ", anti-aliasing included" : "")
    }
  }

  /// The tolerated pixels and why they were tolerated, for a result with some.
  func toleratedClause(_ found: PixelDifferences) -> String {
    let tolerated = found.toleratedPixelCount
    let antiAliased = found.antiAliasedPixelCount
    let within = tolerated - antiAliased
    let more = "\(grouped(tolerated)) more \(tolerated == 1 ? "differs" : "differ")"
    let were = tolerated == 1 ? "was" : "were"
    switch self {
    case .exact:
      // Unreached: exact tolerates no pixel. Kept total so the switch needs no default.
      return "\(more) and \(were) tolerated"
    case .tolerance(let tolerance):
      return "\(more) by at most \(tolerance) in every channel and \(were) tolerated"
    case .perceptual:
      if within == 0 { return "\(more) but \(were) tolerated as anti-aliasing" }
      if antiAliased == 0 { return "\(more) within the threshold and \(were) tolerated" }
      return
        "\(more) but \(were) tolerated: \(grouped(antiAliased)) as anti-aliasing, "
        + "\(grouped(within)) within the threshold"
    }
  }
}

/// A count with a comma between each group of three digits ("480,000"), whatever the locale, so
/// large counts read at a glance and messages stay the same on every machine.
func grouped(_ count: Int) -> String {
  let digits = String(count.magnitude)
  var text = ""
  for (index, digit) in digits.enumerated() {
    if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
    text.append(digit)
  }
  return count < 0 ? "-" + text : text
}

/// A width and height, for messages about sizes.
public struct ImageSize: Sendable, Hashable, CustomStringConvertible {
  /// The width in pixels.
  public var width: Int
  /// The height in pixels.
  public var height: Int

  /// Creates a size.
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }

  public var description: String { "\(width)×\(height)" }
}

extension RGBAImage {
  /// The image's width and height.
  public var size: ImageSize { ImageSize(width: width, height: height) }
}
