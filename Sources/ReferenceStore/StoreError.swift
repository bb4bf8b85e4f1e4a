/// Why a stored object could not be read or written, naming the store and the object.
public enum StoreError: Error, Equatable, CustomStringConvertible {
  /// The store does not hold the object.
  case missing(store: String, key: ObjectKey)
  /// The bytes received are not the object the key names (damaged, truncated, replaced).
  case corrupt(store: String, key: ObjectKey, reason: String)
  /// The store could not be reached or answered with an error.
  case unreachable(store: String, key: ObjectKey?, reason: String)
  /// The store refused the request (403, 401): the credentials are missing or wrong.
  case denied(store: String, key: ObjectKey?, reason: String)
  /// An object is larger than the limit a reader accepts.
  case tooLarge(store: String, key: ObjectKey, size: Int, limit: Int)
  /// The store's configuration file is missing a field, names an unknown kind, or is not
  /// well-formed.
  case badConfiguration(path: String, reason: String)
  /// A pointer file is not well-formed.
  case badPointer(path: String, reason: String)
  /// Writing needs credentials that the environment does not give for this store.
  case noCredentials(store: String, reason: String)
  /// A local file operation failed (the cache, a folder store).
  case io(operation: String, path: String, message: String)

  public var description: String {
    switch self {
    case .missing(let store, let key):
      return "\(store) holds no object \(key); was the merge that wrote its pointer completed?"
    case .corrupt(let store, let key, let reason):
      return "object \(key) from \(store) is not what its key names: \(reason)"
    case .unreachable(let store, let key, let reason):
      return "\(store) could not be reached\(key.map { " for object \($0)" } ?? ""): \(reason)"
    case .denied(let store, let key, let reason):
      return
        "\(store) refused access\(key.map { " to object \($0)" } ?? ""): \(reason); check the credentials in the environment"
    case .tooLarge(let store, let key, let size, let limit):
      return "object \(key) in \(store) has \(size) bytes, over the limit of \(limit)"
    case .badConfiguration(let path, let reason):
      return "\(path): \(reason)"
    case .badPointer(let path, let reason):
      return "\(path) is not a reference pointer: \(reason)"
    case .noCredentials(let store, let reason):
      return "no credentials to write to \(store): \(reason)"
    case .io(let operation, let path, let message):
      return "could not \(operation) \(path): \(message)"
    }
  }
}
