import Foundation
import ReferenceContracts

/// The reference files one assertion looks for, in a package that declares variants
/// (`ReferenceVariants.json`): its running variant's own file, then each fallback's, then the
/// base. It compares with the first that exists and stores a render as its own variant's file;
/// `merge-refs` lands that file only where it differs from what the rest of the chain gives.
struct VariantChain {
  /// The variant the process runs as.
  let running: RunningVariant
  /// The declaration.
  let declaration: ReferenceVariants
  /// The files looked for, most specific first; the base last.
  let candidates: [ReferenceLocation]
  /// The first candidate that exists: the reference compared with; nil when none does.
  let compared: ReferenceLocation?

  /// Where a render is stored: the running variant's own file (the base's on the base).
  var own: ReferenceLocation { candidates[0] }

  /// The chain for an assertion, or nil when the package declares no variants (every platform
  /// then uses the base, as without variants).
  /// - Parameters:
  ///   - base: The base reference's location.
  ///   - name: The reference's name, as the test gave it.
  ///   - requested: `IMAGE_REFERENCE_VARIANT`, if set.
  ///   - generating: Whether the mode stores renders: a platform the declaration does not
  ///     name may verify (against the base) but not generate.
  /// - Throws: `VariantError` naming the declaration, the variant or the name.
  static func resolve(
    base: ReferenceLocation, name: String, requested: String?, generating: Bool
  ) throws(VariantError) -> VariantChain? {
    guard let declaration = try Declarations.shared.declaration(packageRoot: base.packageRoot)
    else { return nil }
    if name.contains(ReferenceVariants.marker) { throw .markerInName(name) }
    let running = try declaration.running(
      requested: requested, platform: ReferencePlatform.current)
    if case .undeclared(let platform) = running, generating {
      throw .generationOnUndeclaredPlatform(
        platform: platform, declared: declaration.names, basePlatform: declaration.basePlatform)
    }
    let candidates = declaration.chain(of: running.variant).map {
      ReferenceLocation(
        packageRoot: base.packageRoot,
        relativePath: VariantPath.path(of: base.relativePath, variant: $0))
    }
    return VariantChain(
      running: running, declaration: declaration, candidates: candidates,
      compared: candidates.first { FileManager.default.fileExists(atPath: $0.url.path) })
  }

  /// Whether a render of this run may become a reference: an undeclared platform's is no
  /// variant's, and `merge-refs` refuses its archive, so its failures print no landing command.
  var rendersCanLand: Bool {
    if case .undeclared = running { return false }
    return true
  }

  /// The sentence a failure message ends with: the variant, the files looked for and the one
  /// compared with.
  var note: String {
    let looked = candidates.map(\.relativePath).joined(separator: ", ")
    let compared = compared.map { "compared with \($0.relativePath)" } ?? "none exists"
    switch running {
    case .undeclared(let platform):
      return "this platform, \(platform), is not declared in \(ReferenceVariants.fileName) "
        + "(declared: \(declaration.names.joined(separator: ", ")); the base is "
        + "\(declaration.basePlatform)), so it verifies against the base: \(compared); "
        + "its renders cannot become references"
    case .base, .declared:
      return "variant \(running) looked for \(looked); \(compared)"
    }
  }
}

/// The declarations read so far, by package root: each file is read once per process.
private final class Declarations: @unchecked Sendable {
  static let shared = Declarations()

  private let lock = NSLock()
  private var byRoot: [String: Result<ReferenceVariants?, VariantError>] = [:]

  func declaration(packageRoot: URL) throws(VariantError) -> ReferenceVariants? {
    lock.lock()
    defer { lock.unlock() }
    // Its path as given: every assertion asks, and a root spelled two ways is merely read twice.
    let key = packageRoot.path
    if let known = byRoot[key] { return try known.get() }
    let result = Result { () throws(VariantError) in
      try ReferenceVariants.read(packageRoot: packageRoot)
    }
    byRoot[key] = result
    return try result.get()
  }
}
