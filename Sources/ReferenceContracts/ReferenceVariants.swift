import Foundation

/// The variants a package keeps references for, declared in `ReferenceVariants.json` at the
/// package root: the platform whose renders are the base references, and each variant with the
/// variants it falls back to before the base.
///
/// ```json
/// {
///   "schemaVersion": 1,
///   "base": "linux-x86_64",
///   "variants": {
///     "linux-arm64": ["linux"],
///     "linux": [],
///     "macos": []
///   }
/// }
/// ```
///
/// A test on `linux-arm64` compares with `name@@linux-arm64.png` if it exists, else
/// `name@@linux.png`, else the base `name.png`. A package without the file has no variants:
/// every platform uses the base, as before.
public struct ReferenceVariants: Sendable, Equatable {
  /// The file's name, at the package root.
  public static let fileName = "ReferenceVariants.json"
  /// The schema version this build reads and writes.
  public static let schemaVersion = 1
  /// What separates a reference's name from its variant in a variant file's name:
  /// `bars@@linux-arm64.png` is variant `linux-arm64` of `bars.png`. A package that declares
  /// variants refuses reference names containing it, so every file name reads one way.
  public static let marker = "@@"

  /// The platform (`os-arch`, as `ReferencePlatform.current` names it) whose renders are the
  /// base references.
  public let basePlatform: String
  /// Each declared variant's fallbacks, most specific first, before the base.
  public let fallbacks: [String: [String]]

  /// The declared variants, sorted.
  public var names: [String] { fallbacks.keys.sorted() }

  /// Creates a declaration, checking it as the file is checked.
  /// - Throws: `VariantError.invalidDeclaration` naming what is wrong.
  public init(basePlatform: String, fallbacks: [String: [String]]) throws(VariantError) {
    self.basePlatform = basePlatform
    self.fallbacks = fallbacks
    if let problem = validationProblem() {
      throw .invalidDeclaration(path: Self.fileName, reason: problem)
    }
  }

  /// The chain a variant's test compares along, most specific first, ending with the base
  /// (nil).
  public func chain(of variant: String?) -> [String?] {
    guard let variant else { return [nil] }
    return [variant] + (fallbacks[variant] ?? []).map { Optional($0) } + [nil]
  }

  /// Which variant a test process runs as.
  /// - Parameters:
  ///   - requested: `IMAGE_REFERENCE_VARIANT` or a scope's setting: a declared variant, or
  ///     `base`; nil to follow the platform.
  ///   - platform: The platform, `os-arch`.
  /// - Throws: `VariantError.undeclaredVariant` for a requested variant the file does not
  ///   declare.
  public func running(requested: String?, platform: String) throws(VariantError) -> RunningVariant {
    if let requested {
      if requested == RunningVariant.baseName { return .base }
      guard fallbacks[requested] != nil else {
        throw .undeclaredVariant(requested, declared: names, basePlatform: basePlatform)
      }
      return .declared(requested)
    }
    if platform == basePlatform { return .base }
    if fallbacks[platform] != nil { return .declared(platform) }
    let os = String(platform.prefix { $0 != "-" })
    if fallbacks[os] != nil { return .declared(os) }
    return .undeclared(platform: platform)
  }

  /// What is wrong with the declaration, or nil.
  private func validationProblem() -> String? {
    if basePlatform.isEmpty { return "\"base\" names no platform" }
    for (name, chain) in fallbacks.sorted(by: { $0.key < $1.key }) {
      guard Self.isValidName(name) else {
        return "variant name \"\(name)\": use lowercase letters, digits, '-' and '_', "
          + "starting with a letter or digit, and not \"base\""
      }
      if name == basePlatform {
        return "\"\(name)\" is the base platform and a variant; a platform is one or the other"
      }
      for fallback in chain where fallbacks[fallback] == nil || fallback == name {
        return "variant \"\(name)\" falls back to \"\(fallback)\", which "
          + (fallback == name ? "is itself" : "is not declared")
      }
      if Set(chain).count != chain.count { return "variant \"\(name)\" names a fallback twice" }
    }
    return nil
  }

  /// Whether a text can name a variant.
  static func isValidName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, name != RunningVariant.baseName else {
      return false
    }
    let allowed = { (scalar: Unicode.Scalar) in
      ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
        || scalar == "_"
    }
    return allowed(first) && first != "-" && first != "_" && name.unicodeScalars.allSatisfy(allowed)
  }
}

/// The variant a test process runs as.
public enum RunningVariant: Sendable, Equatable, CustomStringConvertible {
  /// The base platform, or `IMAGE_REFERENCE_VARIANT=base`.
  case base
  /// A declared variant.
  case declared(String)
  /// A platform the declaration does not name: it verifies against the base, with a note, and
  /// refuses to generate.
  case undeclared(platform: String)

  /// The word for the base in `IMAGE_REFERENCE_VARIANT` and in messages.
  public static let baseName = "base"

  /// The variant whose files a render is stored as: nil for the base.
  public var variant: String? {
    if case .declared(let name) = self { return name }
    return nil
  }

  /// What `description` adds to an undeclared platform's name.
  private static let undeclaredSuffix = " (undeclared)"

  public var description: String {
    switch self {
    case .base: Self.baseName
    case .declared(let name): name
    case .undeclared(let platform): platform + Self.undeclaredSuffix
    }
  }

  /// The platform a manifest's `variants` entry names as undeclared ("linux-x86_64
  /// (undeclared)"); nil for the base and declared variants.
  public static func undeclaredPlatform(recorded: String) -> String? {
    guard recorded.hasSuffix(undeclaredSuffix) else { return nil }
    return String(recorded.dropLast(undeclaredSuffix.count))
  }
}

/// What goes wrong with variants, each naming the file and the fix.
public enum VariantError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The declaration file cannot be read or is not valid.
  case invalidDeclaration(path: String, reason: String)
  /// `IMAGE_REFERENCE_VARIANT` or a setting names a variant the file does not declare.
  case undeclaredVariant(String, declared: [String], basePlatform: String)
  /// A generation run on a platform the declaration does not name.
  case generationOnUndeclaredPlatform(platform: String, declared: [String], basePlatform: String)
  /// A reference name that contains the variant marker.
  case markerInName(String)

  public var description: String {
    switch self {
    case .invalidDeclaration(let path, let reason):
      return "\(path) is not a valid variant declaration: \(reason); see the article "
        + "\"Variants\" for its format"
    case .undeclaredVariant(let name, let declared, let base):
      return "variant \"\(name)\" is not declared in \(ReferenceVariants.fileName) (declared: "
        + "\(Self.list(declared)); the base is \(base)); set \(GenerationContract.variantVariable) "
        + "to one of them or to \(RunningVariant.baseName), or declare it"
    case .generationOnUndeclaredPlatform(let platform, let declared, let base):
      return "this platform, \(platform), is not declared in \(ReferenceVariants.fileName) "
        + "(declared: \(Self.list(declared)); the base is \(base)), so its renders would "
        + "become nobody's references; declare it, or set \(GenerationContract.variantVariable) "
        + "to the variant it should record"
    case .markerInName(let name):
      return "invalid image name '\(name)': names may not contain '\(ReferenceVariants.marker)' "
        + "in a package that declares variants (it marks variant files, name"
        + "\(ReferenceVariants.marker)variant.png)"
    }
  }

  private static func list(_ names: [String]) -> String {
    names.isEmpty ? "none" : names.joined(separator: ", ")
  }
}

extension ReferenceVariants {
  /// The schema of the file.
  private struct File: Decodable {
    var schemaVersion: Int
    var base: String
    var variants: [String: [String]]
  }

  /// Reads the declaration at a package root; nil when the package has none.
  /// - Throws: `VariantError.invalidDeclaration` naming the file and what is wrong.
  public static func read(packageRoot: URL) throws(VariantError) -> ReferenceVariants? {
    let url = packageRoot.appendingPathComponent(fileName)
    guard let data = FileManager.default.contents(atPath: url.path) else {
      if FileManager.default.fileExists(atPath: url.path) {
        throw .invalidDeclaration(path: url.path, reason: "it cannot be read")
      }
      return nil
    }
    return try decode(data, path: url.path)
  }

  /// Decodes a declaration's bytes.
  /// - Throws: `VariantError.invalidDeclaration` naming `path` and what is wrong.
  public static func decode(_ data: Data, path: String) throws(VariantError) -> ReferenceVariants {
    let file: File
    do {
      file = try JSONDecoder().decode(File.self, from: data)
    } catch {
      throw .invalidDeclaration(
        path: path,
        reason: "it is not JSON with \"schemaVersion\", \"base\" and \"variants\" (\(error))")
    }
    guard file.schemaVersion == schemaVersion else {
      throw .invalidDeclaration(
        path: path,
        reason: "schema version \(file.schemaVersion) is not \(schemaVersion), the one this "
          + "version reads; update ReferenceImages")
    }
    do {
      return try ReferenceVariants(basePlatform: file.base, fallbacks: file.variants)
    } catch {
      guard case .invalidDeclaration(_, let reason) = error else { throw error }
      throw .invalidDeclaration(path: path, reason: reason)
    }
  }
}

/// Where a variant's files lie: beside the base, with the variant after the marker,
/// `Tests/X/__References__/XTests/bars@@linux-arm64.png` for `…/bars.png`.
public enum VariantPath {
  /// The path of a reference's variant file; the base path itself for the base (nil).
  /// - Parameters:
  ///   - basePath: The base reference's path, ending in `.png`.
  ///   - variant: The variant, or nil for the base.
  public static func path(of basePath: String, variant: String?) -> String {
    guard let variant else { return basePath }
    return String(basePath.dropLast(".png".count)) + ReferenceVariants.marker + variant + ".png"
  }

  /// The variant whose file a path is; nil for a base path, and for every path where no
  /// variants are declared.
  public static func variant(of path: String, declared: ReferenceVariants?) -> String? {
    declared.flatMap { split(path, declared: $0)?.variant }
  }

  /// The base path and variant a path names, when it is a variant file of a declared variant;
  /// nil for a base path.
  public static func split(_ path: String, declared: ReferenceVariants)
    -> (basePath: String, variant: String)?
  {
    guard path.hasSuffix(".png") else { return nil }
    let stem = path.dropLast(".png".count)
    let fileStart = stem.lastIndex(of: "/").map { stem.index(after: $0) } ?? stem.startIndex
    guard let marker = stem[fileStart...].range(of: ReferenceVariants.marker, options: .backwards)
    else { return nil }
    let variant = String(stem[marker.upperBound...])
    guard declared.fallbacks[variant] != nil else { return nil }
    return (String(stem[..<marker.lowerBound]) + ".png", variant)
  }
}

/// The platform a process runs on, as variant declarations name it: `os-arch`.
public enum ReferencePlatform {
  /// This process's platform, such as `linux-x86_64`, `linux-arm64` or `macos-arm64`.
  public static var current: String { "\(os)-\(architecture)" }

  private static var os: String {
    #if os(Linux)
      "linux"
    #elseif os(macOS)
      "macos"
    #elseif os(iOS)
      "ios"
    #elseif os(tvOS)
      "tvos"
    #elseif os(watchOS)
      "watchos"
    #elseif os(visionOS)
      "visionos"
    #elseif os(Windows)
      "windows"
    #else
      "unknown"
    #endif
  }

  private static var architecture: String {
    #if arch(x86_64)
      "x86_64"
    #elseif arch(arm64)
      "arm64"
    #elseif arch(arm)
      "arm"
    #elseif arch(i386)
      "i386"
    #else
      "unknown"
    #endif
  }
}
