import Foundation
import ReferenceContracts

/// What image assertions do with rendered images, from `IMAGE_GENERATION_MODE`.
public enum GenerationMode: Sendable, Equatable, CustomStringConvertible {
  /// Unset, `0` or `never`: compare with references; store nothing.
  case verify
  /// `1` or `all`: store every image; never fail on a mismatch.
  case all
  /// `missing`: compare; store images that have no reference yet, without failing for them.
  case missing
  /// `failed`: compare; store images that are missing or mismatched; those tests still fail.
  case failed
  /// Any other value: a configuration error. Every image assertion fails naming the value.
  case invalid(String)

  /// The environment variable that selects the mode.
  public static let environmentVariable = GenerationContract.modeVariable

  /// Parses the variable's value; surrounding white space and letter case are ignored.
  /// - Parameter value: The value, or nil when the variable is unset.
  public init(environmentValue value: String?) {
    guard let value else {
      self = .verify
      return
    }
    let spelled = value.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    switch spelled {
    case "", "0", "never": self = .verify
    case "1": self = .all
    default:
      // The recording modes by their names (`RunMode`); verify is spelled as above.
      switch RunMode(rawValue: spelled) {
      case .all: self = .all
      case .missing: self = .missing
      case .failed: self = .failed
      case .verify, .other: self = .invalid(value)
      }
    }
  }

  /// Whether this mode may store images at all.
  public var storesImages: Bool {
    switch self {
    case .all, .missing, .failed: true
    case .verify, .invalid: false
    }
  }

  /// The name written into manifests: `all`, `missing`, `failed`, `verify`; an invalid value
  /// as `invalid(VALUE)`.
  public var name: RunMode {
    switch self {
    case .verify: .verify
    case .all: .all
    case .missing: .missing
    case .failed: .failed
    case .invalid(let value): .other("invalid(\(value))")
    }
  }

  /// The name written into manifests (`name`).
  public var description: String { name.rawValue }

  /// The sentence shown when the value is invalid.
  static func invalidMessage(_ value: String) -> String {
    "IMAGE_GENERATION_MODE has the invalid value '\(value)'; use 0 or never (verify), 1 or all "
      + "(record every image), missing, or failed. Every image assertion fails until it is fixed."
  }
}
