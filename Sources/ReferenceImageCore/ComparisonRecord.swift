/// A comparison and its bound as a value that can be written down and read back: the manifest
/// records the one each test used, so whoever reads an archive later (the review report)
/// judges exactly as the test did. Versioned: a reader refuses a newer record by its version
/// rather than judging by a rule it does not know.
///
/// Version 2 adds ignored regions and shift tolerance. A record uses version 2 only when it has
/// either, so a comparison without them is written exactly as before (version 1, the same
/// bytes) and readers that know version 1 only refuse just the records they would misjudge.
public struct ComparisonRecord: Codable, Sendable, Hashable {
  /// The newest record version this code reads and writes.
  public static let currentVersion = 2
  /// The version of records without ignored regions and shift tolerance.
  public static let plainVersion = 1

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
  /// The regions the comparison ignores (version 2); nil when none.
  public var ignoredRegions: [IgnoredRegion]?
  /// How far a pixel may move and still match (version 2); nil when not at all.
  public var shiftTolerance: Int?

  /// Records a comparison and its bound.
  public init(_ comparison: ImageComparison, bound: DifferenceBound) {
    let regions = comparison.ignoredRegions
    let shift = comparison.maximumShift
    version = regions.isEmpty && shift == 0 ? Self.plainVersion : Self.currentVersion
    ignoredRegions = regions.isEmpty ? nil : regions
    shiftTolerance = shift == 0 ? nil : shift
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
    let strategy: ImageComparison
    switch kind {
    case .exact: strategy = .exact
    case .tolerance: strategy = .tolerance(tolerance ?? 0)
    case .perceptual:
      strategy = .perceptual(
        threshold: threshold ?? 0.1, includeAntiAliasing: includeAntiAliasing ?? false)
    }
    return strategy.ignoring(ignoredRegions ?? []).shiftTolerance(shiftTolerance ?? 0)
  }

  /// Whether only equal pixels pass: an exact comparison that ignores nothing and tolerates no
  /// shift. For such a record, pixel digests decide without decoding an image.
  public var needsEqualPixels: Bool {
    kind == .exact && (ignoredRegions ?? []).isEmpty && (shiftTolerance ?? 0) == 0
  }

  /// The bound recorded: none unless one was.
  public var bound: DifferenceBound {
    if let requiredAccuracy { return .requiredAccuracy(requiredAccuracy) }
    return .maximumDifferingPixels(maximumDifferingPixels ?? 0)
  }
}
