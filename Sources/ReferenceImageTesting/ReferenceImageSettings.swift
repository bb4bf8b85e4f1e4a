import Foundation

/// Settings of image assertions for one test, suite or block, overriding the environment.
///
/// Set them with ``withReferenceImages(mode:referenceFolder:variant:operation:)`` (XCTest and any
/// other code) or the ``Testing/Trait/referenceImages(mode:referenceFolder:variant:)`` trait
/// (Swift Testing).
/// They are task-local: concurrent tests each see their own, and code outside the scope sees
/// the environment's. A detached task or a Dispatch queue started inside the scope does not
/// inherit them.
public struct ReferenceImageSettings: Sendable, Equatable {
  /// The generation mode; nil for `IMAGE_GENERATION_MODE`.
  public var mode: GenerationMode?
  /// The reference folder, as `assertImage`'s `referenceFolder:` argument takes it (absolute, or
  /// relative to the package root); nil for the default or `IMAGE_REFERENCE_DIR`. A
  /// `referenceFolder:` passed to `assertImage` wins over it.
  public var referenceFolder: URL?
  /// The variant assertions run as, in a package that declares variants (`ReferenceVariants.json`:
  /// a declared variant, or `base`); nil for `IMAGE_REFERENCE_VARIANT`, then the platform.
  public var variant: String?

  /// Creates settings; a nil value leaves that setting to the enclosing scope or environment.
  public init(mode: GenerationMode? = nil, referenceFolder: URL? = nil, variant: String? = nil) {
    self.mode = mode
    self.referenceFolder = referenceFolder
    self.variant = variant
  }

  /// The settings in effect here: the innermost scope's value for each setting.
  public static var current: ReferenceImageSettings { scoped }

  @TaskLocal static var scoped = ReferenceImageSettings()

  /// These settings with `inner`'s non-nil values on top.
  func overridden(by inner: ReferenceImageSettings) -> ReferenceImageSettings {
    ReferenceImageSettings(
      mode: inner.mode ?? mode, referenceFolder: inner.referenceFolder ?? referenceFolder,
      variant: inner.variant ?? variant)
  }
}

/// Runs `operation` with image assertion settings that override the environment, for example
/// to record one test's images whatever `IMAGE_GENERATION_MODE` says:
///
/// ```swift
/// func testNewChart() throws {
///   try withReferenceImages(mode: .all) {
///     assertImage(try NewChart().render(), named: "new-chart")
///   }
/// }
/// ```
///
/// For every test of an XCTest class, wrap `invokeTest`:
///
/// ```swift
/// override func invokeTest() {
///   withReferenceImages(mode: .missing) { super.invokeTest() }
/// }
/// ```
///
/// Scopes nest: a setting left nil keeps the enclosing scope's value.
/// - Parameters:
///   - mode: The generation mode inside the scope; nil keeps the enclosing one.
///   - referenceFolder: The reference folder inside the scope (absolute, or relative to the
///     package root); nil keeps the enclosing one.
///   - variant: The variant inside the scope, in a package that declares variants (a declared
///     variant, or `base`); nil keeps the enclosing one.
///   - operation: The code to run.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws.
public func withReferenceImages<Result>(
  mode: GenerationMode? = nil, referenceFolder: URL? = nil, variant: String? = nil,
  operation: () throws -> Result
) rethrows -> Result {
  let settings = ReferenceImageSettings.current.overridden(
    by: ReferenceImageSettings(mode: mode, referenceFolder: referenceFolder, variant: variant))
  return try ReferenceImageSettings.$scoped.withValue(settings, operation: operation)
}

/// Runs asynchronous `operation` with image assertion settings that override the environment;
/// see ``withReferenceImages(mode:referenceFolder:variant:operation:)-(_,_,_,()->Result)``.
/// - Parameters:
///   - mode: The generation mode inside the scope; nil keeps the enclosing one.
///   - referenceFolder: The reference folder inside the scope; nil keeps the enclosing one.
///   - variant: The variant inside the scope; nil keeps the enclosing one.
///   - isolation: The caller's actor, which `operation` keeps running on.
///   - operation: The code to run.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws.
public func withReferenceImages<Result>(
  mode: GenerationMode? = nil, referenceFolder: URL? = nil, variant: String? = nil,
  isolation: isolated (any Actor)? = #isolation, operation: () async throws -> Result
) async rethrows -> Result {
  let settings = ReferenceImageSettings.current.overridden(
    by: ReferenceImageSettings(mode: mode, referenceFolder: referenceFolder, variant: variant))
  return try await ReferenceImageSettings.$scoped.withValue(settings, operation: operation)
}
