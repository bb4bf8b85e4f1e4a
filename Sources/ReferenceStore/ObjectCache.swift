import Foundation

/// Stored objects as a reader gets them: from a local cache folder first, else from the store,
/// each checked against its key, and kept in the cache for the next reader.
///
/// The cache is a `FolderStore` of its own: `IMAGE_REFERENCE_CACHE`, else
/// `$XDG_CACHE_HOME/reference-images/objects`, else `~/.cache/reference-images/objects`. A
/// damaged cached object is read again from the store; a cache that cannot be written (a full
/// disk) costs the next reader a download, never a wrong answer.
public struct ObjectCache: Sendable {
  /// The environment variable that names the cache folder.
  public static let environmentVariable = "IMAGE_REFERENCE_CACHE"

  public let cache: FolderStore
  /// The store; nil when only the cache is available (a job with no store access).
  public let store: (any ObjectStore)?

  public init(cache: FolderStore, store: (any ObjectStore)?) {
    self.cache = cache
    self.store = store
  }

  /// The default cache folder for an environment.
  public static func defaultFolder(environment: [String: String]) -> URL {
    if let folder = environment[environmentVariable], !folder.isEmpty {
      return URL(fileURLWithPath: folder, isDirectory: true)
    }
    if let base = environment["XDG_CACHE_HOME"], base.hasPrefix("/") {
      return URL(fileURLWithPath: base).appendingPathComponent("reference-images/objects")
    }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return URL(fileURLWithPath: home).appendingPathComponent(".cache/reference-images/objects")
  }

  /// Where an object came from.
  public enum Origin: Equatable, Sendable {
    case cache
    case store
  }

  /// The PNG a pointer names, checked against its key and the size the pointer gives.
  /// - Throws: `StoreError.badPointer` when the object's size is not the pointer's (the
  ///   pointer was edited), else what `object(_:)` throws.
  public func png(for pointer: ReferencePointer, at path: String) throws(StoreError) -> [UInt8] {
    let bytes = try object(pointer.object).bytes
    guard bytes.count == pointer.objectSize else {
      throw .badPointer(
        path: path,
        reason:
          "it gives object-size \(pointer.objectSize), and its object has \(bytes.count) bytes")
    }
    return bytes
  }

  /// An object's bytes, checked against its key.
  /// - Throws: the store's error when the cache does not hold it and the store cannot give it.
  public func object(_ key: ObjectKey) throws(StoreError) -> (bytes: [UInt8], origin: Origin) {
    if let cached = try? StoredObject.fetch(key, from: cache) {
      return (cached, .cache)
    }
    guard let store else {
      throw .unreachable(
        store: "the cache \(cache.name)", key: key,
        reason: "no store is configured to fetch it from")
    }
    let bytes = try StoredObject.fetch(key, from: store)
    try? cache.put(key, bytes)
    return (bytes, .store)
  }
}
