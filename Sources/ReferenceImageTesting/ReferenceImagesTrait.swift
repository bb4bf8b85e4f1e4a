import Foundation
import Testing

/// A Swift Testing trait that sets image assertion settings for one test or a whole suite; see
/// ``Testing/Trait/referenceImages(mode:referenceFolder:)``.
public struct ReferenceImagesTrait: TestTrait, SuiteTrait, TestScoping {
  /// The settings inside the test or suite.
  public let settings: ReferenceImageSettings

  /// Runs the test or suite inside ``withReferenceImages(mode:referenceFolder:operation:)``.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withReferenceImages(
      mode: settings.mode, referenceFolder: settings.referenceFolder, operation: function)
  }
}

extension Trait where Self == ReferenceImagesTrait {
  /// Overrides the generation mode or the reference folder for one test or suite; other tests,
  /// even those running at the same time, keep `IMAGE_GENERATION_MODE`.
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
  public static func referenceImages(
    mode: GenerationMode? = nil, referenceFolder: URL? = nil
  ) -> Self {
    ReferenceImagesTrait(
      settings: ReferenceImageSettings(mode: mode, referenceFolder: referenceFolder))
  }
}
