extension ComparisonRecord {
  /// A record from its fields as written, for readers of the manifest that do not use
  /// `Decodable` (`ArchiveManifest`'s strict reading).
  package init(
    version: Int, kind: Kind, tolerance: Int?, threshold: Double?, includeAntiAliasing: Bool?,
    requiredAccuracy: Double?, maximumDifferingPixels: Int?, ignoredRegions: [IgnoredRegion]?,
    shiftTolerance: Int?
  ) {
    self.version = version
    self.kind = kind
    self.tolerance = tolerance
    self.threshold = threshold
    self.includeAntiAliasing = includeAntiAliasing
    self.requiredAccuracy = requiredAccuracy
    self.maximumDifferingPixels = maximumDifferingPixels
    self.ignoredRegions = ignoredRegions
    self.shiftTolerance = shiftTolerance
  }
}
