/// The package's version, defined once: the manifests' `toolVersion`, `merge-refs --version`
/// and `reference-shards --version` read it.
public enum ToolVersion {
  /// The version number.
  public static let number = "0.1.0"
  /// The name and version a manifest records.
  public static let name = "ReferenceImages \(number)"
}
