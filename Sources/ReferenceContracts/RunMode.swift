// This file imports nothing on purpose: the regenerate-references plugin, which cannot import
// the package's libraries, compiles it too, through a symbolic link in its folder.

/// A run's generation mode by name: the one definition of the names that the generation mode
/// variable takes, that the `regenerate-references` plugin's `--mode` takes and sets, and that
/// the manifest records (`ArchiveManifest.mode`). `GenerationMode` parses the variable, with its
/// other spellings (`1`, `0`, `never`) and invalid values, and names its mode with this.
public enum RunMode: Hashable, Sendable {
  /// `verify`: compare with the references. A verify run's archive holds the renders of its
  /// failed comparisons; the variable says it as unset, `0` or `never`.
  case verify
  /// `all`: record every image.
  case all
  /// `missing`: compare, and record images that have no reference yet.
  case missing
  /// `failed`: compare, and record images that are missing or mismatched.
  case failed
  /// A name this version does not know, as written (never one of the names above): in the
  /// manifest of a process whose variable held an invalid value (`invalid(VALUE)`), or of a
  /// later version with a mode of its own.
  case other(String)

  /// The modes that record images, in the order the plugin lists them: `all`, `missing`,
  /// `failed`.
  public static let recording: [RunMode] = [.all, .missing, .failed]
  /// Every mode this version names.
  public static let named: [RunMode] = [.verify] + recording

  /// The mode with this name; a name that is none of the modes is `other`.
  public init(rawValue: String) {
    self = Self.named.first { $0.rawValue == rawValue } ?? .other(rawValue)
  }

  /// The name, as the manifest writes it.
  public var rawValue: String {
    switch self {
    case .verify: "verify"
    case .all: "all"
    case .missing: "missing"
    case .failed: "failed"
    case .other(let name): name
    }
  }
}

// Codable through its raw value: a JSON string, as the manifest has always written the mode.
extension RunMode: RawRepresentable, Codable {}

extension RunMode: CustomStringConvertible {
  /// The name.
  public var description: String { rawValue }
}

extension RunMode: ExpressibleByStringLiteral {
  /// The mode a literal names, for fixtures and tests: a literal must name one of the modes.
  public init(stringLiteral name: String) {
    self.init(rawValue: name)
    if case .other = self { preconditionFailure("'\(name)' is not a generation mode") }
  }
}
