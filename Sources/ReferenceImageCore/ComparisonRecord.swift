/// A comparison and its bound as a value that can be written down and read back: the manifest
/// records the one each test used, so whoever reads an archive later (the review report)
/// judges exactly as the test did. Versioned: a reader refuses a newer record by its version
/// rather than judging by a rule it does not know.
public struct ComparisonRecord: Codable, Sendable, Hashable {
  /// The record version this code writes.
  public static let currentVersion = 1

  /// The comparison's kind.
  public enum Kind: String, Codable, Sendable {
    /// `ImageComparison.exact`.
    case exact
    /// `ImageComparison.tolerance(_:)`, with `tolerance`.
    case tolerance
    /// `ImageComparison.perceptual(threshold:includeAntiAliasing:)`, with `threshold` and
    /// `includeAntiAliasing`.
    case perceptual
  }

  /// The record's version.
  public var version: Int
  /// The kind.
  public var kind: Kind
  /// For `tolerance`: the largest tolerated channel difference.
  public var tolerance: Int?
  /// For `perceptual`: the YIQ threshold, 0 to 1.
  public var threshold: Double?
  /// For `perceptual`: whether anti-aliased pixels count as differences.
  public var includeAntiAliasing: Bool?
  /// The bound as a fraction of pixels that must match, when given so.
  public var requiredAccuracy: Double?
  /// The bound as a count of differing pixels allowed, when given so.
  public var maximumDifferingPixels: Int?

  /// Records a comparison and its bound.
  public init(_ comparison: ImageComparison, bound: DifferenceBound) {
    version = Self.currentVersion
    switch comparison.criterion {
    case .exact:
      kind = .exact
    case .tolerance(let tolerance):
      kind = .tolerance
      self.tolerance = tolerance
    case .perceptual(let threshold, let includeAntiAliasing):
      kind = .perceptual
      self.threshold = threshold
      self.includeAntiAliasing = includeAntiAliasing
    }
    switch bound {
    case .requiredAccuracy(let accuracy): requiredAccuracy = accuracy
    case .maximumDifferingPixels(let count): maximumDifferingPixels = count
    }
  }

  /// The comparison recorded, or nil for a version this code does not know.
  public var comparison: ImageComparison? {
    guard version <= Self.currentVersion else { return nil }
    switch kind {
    case .exact: return .exact
    case .tolerance: return .tolerance(tolerance ?? 0)
    case .perceptual:
      return .perceptual(
        threshold: threshold ?? 0.1, includeAntiAliasing: includeAntiAliasing ?? false)
    }
  }

  /// The bound recorded: none unless one was.
  public var bound: DifferenceBound {
    if let requiredAccuracy { return .requiredAccuracy(requiredAccuracy) }
    return .maximumDifferingPixels(maximumDifferingPixels ?? 0)
  }
}
