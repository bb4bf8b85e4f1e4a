/// A manifest this tool cannot read: not JSON, missing fields, or from a newer format.
public struct ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The archive or file the manifest came from.
  public var source: String
  /// What is wrong with it, and the fix when there is one.
  public var reason: String

  public init(source: String, reason: String) {
    self.source = source
    self.reason = reason
  }

  public var description: String { "\(source): unreadable manifest: \(reason)" }
}
