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

  /// One sentence with the numbers a person needs, for example "image with 250000 pixels differed
  /// from reference by 37 pixels (allowed: 25), largest channel difference 212, within x 10…58,
  /// y 4…19".
  public var description: String {
    switch outcome {
    case .identical:
      return "image is identical to reference"
    case .sizeMismatch(let actual, let reference):
      return "image size \(actual) differs from reference size \(reference)"
    case .withinBound(let found), .differs(let found):
      var text =
        "image with \(found.totalPixelCount) pixels differed from reference by "
        + "\(found.differingPixelCount) pixels (allowed: \(allowedDifferingPixels)), "
        + "largest channel difference \(found.largestChannelDifference)"
      if let box = found.boundingBox { text += ", within \(box)" }
      if found.toleratedPixelCount > 0 {
        text +=
          "; \(found.toleratedPixelCount) more pixels differ within the \(comparisonName) comparison"
      }
      return text
    }
  }
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
