/// Where reference PNGs live when the repository holds only their pointers: objects named by
/// the SHA-256 of their bytes.
///
/// Each backend (`FolderStore`, `HTTPStore`, `S3Store`) answers the five calls for one store.
/// Calls block: verify runs on a test's thread, and the merge calls from its own workers.
/// Nothing here checks an object against its key; `StoredObject.fetch` does, for every
/// reader.
public protocol ObjectStore: Sendable {
  /// The store as people name it (a folder, a URL, a bucket), never with credentials.
  var name: String { get }
  /// Whether the store holds the object.
  func has(_ key: ObjectKey) throws(StoreError) -> Bool
  /// The object's bytes, at most `limit` of them.
  /// - Throws: `StoreError.missing` when there is no such object, `.tooLarge` over `limit`.
  func get(_ key: ObjectKey, limit: Int) throws(StoreError) -> [UInt8]
  /// Stores bytes under their key; storing an object that is already there changes nothing.
  func put(_ key: ObjectKey, _ bytes: [UInt8]) throws(StoreError)
  /// Stores bytes under their key unless the store holds them.
  /// - Returns: Whether they were sent (false when the store held them already).
  func putNew(_ key: ObjectKey, _ bytes: [UInt8]) throws(StoreError) -> Bool
  /// Every key the store holds (housekeeping).
  func list() throws(StoreError) -> [ObjectKey]
  /// Removes an object; removing a missing one is not an error (housekeeping).
  func delete(_ key: ObjectKey) throws(StoreError)
}

extension ObjectStore {
  public func putNew(_ key: ObjectKey, _ bytes: [UInt8]) throws(StoreError) -> Bool {
    try putAskingFirst(key, bytes)
  }

  /// Asks whether the store holds the object, then sends it when it does not.
  /// - Returns: Whether the bytes were sent.
  public func putAskingFirst(_ key: ObjectKey, _ bytes: [UInt8]) throws(StoreError) -> Bool {
    if try has(key) { return false }
    try put(key, bytes)
    return true
  }
}

/// The checked reading and writing every caller uses.
public enum StoredObject {
  /// The largest object a reader accepts: a reference PNG of 16,384 × 16,384 pixels stored
  /// uncompressed, with room to spare.
  public static let sizeLimit = 1 << 30

  /// Reads an object and checks its bytes against its key.
  /// - Throws: `StoreError.corrupt` when the bytes are not the object the key names.
  public static func fetch(
    _ key: ObjectKey, from store: any ObjectStore, limit: Int = sizeLimit
  ) throws(StoreError) -> [UInt8] {
    let bytes = try store.get(key, limit: limit)
    try check(bytes, against: key, from: store.name)
    return bytes
  }

  /// Stores bytes unless the store has them, then checks the store holds them: what the
  /// merge does before it writes any pointer naming the object.
  /// - Returns: Whether the bytes were uploaded (false when the store already held them).
  @discardableResult
  public static func upload(_ bytes: [UInt8], to store: any ObjectStore) throws(StoreError)
    -> Bool
  {
    let key = ObjectKey(of: bytes)
    guard try store.putNew(key, bytes) else { return false }
    guard try store.has(key) else {
      throw .missing(store: store.name, key: key)
    }
    return true
  }

  /// Throws unless `bytes` hash to `key`.
  public static func check(_ bytes: [UInt8], against key: ObjectKey, from store: String)
    throws(StoreError)
  {
    let actual = ObjectKey(of: bytes)
    guard actual == key else {
      throw .corrupt(
        store: store, key: key, reason: "its \(bytes.count) bytes have the SHA-256 \(actual)")
    }
  }
}
