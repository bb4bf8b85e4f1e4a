/// Why an imported source (a result bundle, an attachment export) was refused: the container
/// and the object in it are named, with the reason and what to do.
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The bundle or export folder.
  public var container: String
  /// The object, file or attachment inside it.
  public var object: String
  /// What is wrong, and what to do about it.
  public var reason: String

  /// Creates an error.
  public init(container: String, object: String, reason: String) {
    self.container = container
    self.object = object
    self.reason = reason
  }

  public var description: String { "\(container): refused \(object): \(reason)" }
}
