import ReferenceImageCore

extension ImageDecision.Failure {
  /// The comparison's difference image of a mismatch, for its artifact and its kinds of
  /// change; nil for every other failure. Drawn only here, for a failure: a passing comparison
  /// never pays for it.
  /// - Parameters:
  ///   - image: The rendered image.
  ///   - comparison: The comparison the assertion used: its difference image says which
  ///     pixels count.
  /// - Returns: The difference image.
  func differenceImage(image: RGBAImage, comparison: ImageComparison) -> RGBAImage? {
    guard case .mismatch(let reference, _, _) = self else { return nil }
    return comparison.differenceImage(image, reference)
  }

  /// What kind of change each changed region of a mismatch is, one short line per region
  /// ("region x 10…58, y 4…19: moved by (2, 1)"), the largest first, at most
  /// `ChangeClassification.listedRegionLimit`, then how many more; for a size mismatch the
  /// areas only one image covers, then the common area's regions. Empty for every other
  /// failure.
  /// - Parameters:
  ///   - image: The rendered image.
  ///   - differenceImage: The mismatch's difference image (`differenceImage(image:comparison:)`).
  ///   - comparison: The comparison the assertion used: its ignored regions change no kind.
  /// - Returns: The lines.
  func changeLines(image: RGBAImage, differenceImage: RGBAImage?, comparison: ImageComparison)
    -> [String]
  {
    guard case .mismatch(let reference, _, _) = self, let differenceImage else { return [] }
    return ChangeClassifier.classify(
      comparison.asCompared(image, reference: reference), reference: reference,
      differenceImage: differenceImage
    ).lines()
  }
}
