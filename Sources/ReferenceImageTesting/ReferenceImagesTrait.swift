import Foundation
import Testing

/// A Swift Testing trait that sets image assertion settings for one test or a whole suite; see
/// ``Testing/Trait/referenceImages(mode:referenceFolder:variant:)``.
public struct ReferenceImagesTrait: TestTrait, SuiteTrait, TestScoping {
  /// The settings inside the test or suite.
  public let settings: ReferenceImageSettings

  /// Runs the test or suite inside
  /// ``withReferenceImages(mode:referenceFolder:variant:isolation:operation:)``.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withReferenceImages(
      mode: settings.mode, referenceFolder: settings.referenceFolder, variant: settings.variant,
      operation: function)
  }
}

extension Trait where Self == ReferenceImagesTrait {
  /// Overrides the generation mode, the reference folder or the variant for one test or suite;
  /// other tests, even those running at the same time, keep `IMAGE_GENERATION_MODE`.
  ///
  /// ```swift
  /// @Test(.referenceImages(mode: .all))
  /// func newChart() throws {
  ///   assertImage(try NewChart().render(), named: "new-chart")
  /// }
  /// ```
  ///
  /// On a suite it applies to every test inside; a test's own trait wins over its suite's.
  /// - Parameters:
  ///   - mode: The generation mode; nil keeps the enclosing one.
  ///   - referenceFolder: The reference folder (absolute, or relative to the package root); nil
  ///     keeps the enclosing one.
  ///   - variant: The variant the assertions run as, in a package that declares variants (a
  ///     declared variant, or `base`): a suite keyed on a font set, say. Nil keeps the enclosing
  ///     one, then `IMAGE_REFERENCE_VARIANT`, then the platform.
  public static func referenceImages(
    mode: GenerationMode? = nil, referenceFolder: URL? = nil, variant: String? = nil
  ) -> Self {
    ReferenceImagesTrait(
      settings: ReferenceImageSettings(
        mode: mode, referenceFolder: referenceFolder, variant: variant))
  }
}
