import Foundation
import ReferenceArchive

/// A store in a folder: a shared drive, a CI cache directory, or the local cache itself.
///
/// Objects sit at `<folder>/<first two hex digits>/<key>`, so no folder holds more than a
/// 256th of them. A key is hex only, so no object's path leaves the folder. Each object is
/// written under a temporary name and renamed into place: a reader sees all of it or nothing,
/// and two writers of one object both succeed with the same bytes.
public struct FolderStore: ObjectStore {
  /// The folder.
  public let folder: URL

  public init(folder: URL) {
    self.folder = folder
  }

  public var name: String { folder.path }

  /// Where an object lives.
  public func url(of key: ObjectKey) -> URL {
    URL(fileURLWithPath: path(of: key), isDirectory: false)
  }

  /// Where an object lives, as a path.
  public func path(of key: ObjectKey) -> String {
    "\(folder.path)/\(Self.relativePath(of: key))"
  }

  /// Where an object lives below the folder: `<fan>/<key>`.
  public static func relativePath(of key: ObjectKey) -> String {
    "\(fan(of: key))/\(key.hex)"
  }

  /// The name of the fan-out folder an object lives in: its key's first two hex digits.
  public static func fan(of key: ObjectKey) -> String {
    String(key.hex.prefix(2))
  }

  public func has(_ key: ObjectKey) throws(StoreError) -> Bool {
    var status = stat()
    return stat(path(of: key), &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
  }

  public func get(_ key: ObjectKey, limit: Int) throws(StoreError) -> [UInt8] {
    let file = url(of: key)
    var status = stat()
    guard stat(file.path, &status) == 0 else {
      if errno == ENOENT || errno == ENOTDIR { throw .missing(store: name, key: key) }
      throw .io(operation: "read", path: file.path, message: String(cString: strerror(errno)))
    }
    guard Int(status.st_size) <= limit else {
      throw .tooLarge(store: name, key: key, size: Int(status.st_size), limit: limit)
    }
    do {
      guard let bytes = try FileSystem.readIfPresent(file) else {
        throw StoreError.missing(store: name, key: key)
      }
      return bytes
    } catch let error as StoreError {
      throw error
    } catch {
      throw .io(operation: "read", path: file.path, message: "\(error)")
    }
  }

  public func put(_ key: ObjectKey, _ bytes: [UInt8]) throws(StoreError) {
    let file = url(of: key)
    do {
      // Creates the fan-out folder when it is missing.
      try FileSystem.writeAtomically(bytes, to: file)
    } catch {
      throw .io(operation: "write", path: file.path, message: "\(error)")
    }
  }

  public func list() throws(StoreError) -> [ObjectKey] {
    let manager = FileManager.default
    guard let fans = try? manager.contentsOfDirectory(atPath: folder.path) else {
      if !manager.fileExists(atPath: folder.path) { return [] }
      throw .io(operation: "list", path: folder.path, message: "not a readable folder")
    }
    var keys: [ObjectKey] = []
    for fan in fans where fan.utf8.count == 2 {
      let names = (try? manager.contentsOfDirectory(atPath: folder.path + "/" + fan)) ?? []
      keys += names.compactMap { name in
        ObjectKey(name).flatMap { $0.hex.hasPrefix(fan) ? $0 : nil }
      }
    }
    return keys.sorted()
  }

  public func delete(_ key: ObjectKey) throws(StoreError) {
    let file = url(of: key)
    guard unlink(file.path) == 0 || errno == ENOENT else {
      throw .io(operation: "delete", path: file.path, message: String(cString: strerror(errno)))
    }
  }
}
