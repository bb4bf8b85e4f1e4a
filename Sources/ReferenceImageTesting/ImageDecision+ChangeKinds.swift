import ReferenceImageCore

extension ImageDecision.Failure {
  /// What kind of change each changed region of a mismatch is, one short line per region
  /// ("region x 10…58, y 4…19: moved by (2, 1)"), the largest first, at most
  /// `ChangeClassification.listedRegionLimit`, then how many more; for a size mismatch the
  /// areas only one image covers, then the common area's regions. Empty for every other
  /// failure. Computed only here, for a failure: a passing comparison never pays for it.
  /// - Parameters:
  ///   - image: The rendered image.
  ///   - comparison: The comparison the assertion used: its difference image says which
  ///     pixels count.
  /// - Returns: The lines.
  func changeLines(image: RGBAImage, comparison: ImageComparison) -> [String] {
    guard case .mismatch(let reference, _, _) = self else { return [] }
    return ChangeClassifier.classify(
      image, reference: reference, differenceImage: comparison.differenceImage(image, reference)
    ).lines()
  }
}
