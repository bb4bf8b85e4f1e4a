import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceStore

/// What a reference's path holds: a PNG in the repository, or a pointer to one in the
/// package's store (`chart.png.ref` beside where `chart.png` would be).
enum ReferenceFile {
  case png([UInt8])
  case pointer(ReferencePointer)

  /// Reads the reference at `location`: its PNG, else its pointer; nil when there is neither.
  /// A PNG costs one `open`, as before; the pointer is looked for only when there is no PNG.
  /// - Throws: `ReferenceImageError.referenceBesidePointer` when both exist,
  ///   `.unreadableReference` when either cannot be read or the pointer is not valid.
  static func read(at location: ReferenceLocation) throws(ReferenceImageError) -> ReferenceFile? {
    let pointerURL = URL(fileURLWithPath: location.url.path + ReferencePointer.pathExtension)
    if let png = try ReferenceImages.referenceBytes(at: location) {
      guard (try? FileSystem.readIfPresent(pointerURL)) == nil else {
        throw .referenceBesidePointer(path: location.url.path)
      }
      return .png(png)
    }
    let bytes: [UInt8]
    do {
      guard let read = try FileSystem.readIfPresent(pointerURL) else { return nil }
      bytes = read
    } catch {
      throw .unreadableReference(path: pointerURL.path, reason: "\(error)")
    }
    do {
      return .pointer(try ReferencePointer(parsing: bytes, path: pointerURL.path))
    } catch {
      throw .unreadableReference(path: pointerURL.path, reason: "\(error)")
    }
  }

  /// The PNG's bytes: the file's, or the pointer's object from the cache or the store.
  /// - Throws: `ReferenceImageError.referenceObjectUnavailable` naming the pointer, the store
  ///   and the object when it cannot be had.
  func pngBytes(at location: ReferenceLocation, stores: PackageStores = .shared)
    throws(ReferenceImageError) -> [UInt8]
  {
    switch self {
    case .png(let bytes): return bytes
    case .pointer(let pointer): return try stores.png(pointer, for: location)
    }
  }
}

/// Each package's store and the local cache, opened once per process when a comparison first
/// needs an object: a passing verify, whose renders match their pointers, opens nothing.
final class PackageStores: @unchecked Sendable {
  init(environment: [String: String]) {
    self.environment = environment
  }

  static let shared = PackageStores(environment: ProcessInfo.processInfo.environment)

  /// The environment that names the cache folder and the store's credentials.
  let environment: [String: String]
  private let lock = NSLock()
  private var byRoot: [String: Result<ObjectCache, StoreError>] = [:]

  /// The object a pointer names, checked against its key.
  func png(_ pointer: ReferencePointer, for location: ReferenceLocation)
    throws(ReferenceImageError) -> [UInt8]
  {
    let pointerPath = location.url.path + ReferencePointer.pathExtension
    do {
      return try objects(packageRoot: location.packageRoot).get().png(for: pointer, at: pointerPath)
    } catch {
      throw .referenceObjectUnavailable(pointer: pointerPath, reason: "\(error)")
    }
  }

  private func objects(packageRoot: URL) -> Result<ObjectCache, StoreError> {
    lock.lock()
    defer { lock.unlock() }
    if let known = byRoot[packageRoot.path] { return known }
    let opened = Result { () throws(StoreError) -> ObjectCache in
      let cache = FolderStore(folder: ObjectCache.defaultFolder(environment: environment))
      guard let configuration = try StoreConfiguration.read(packageRoot: packageRoot) else {
        // Pointers without a store: only the cache can answer.
        return ObjectCache(cache: cache, store: nil)
      }
      return ObjectCache(cache: cache, store: try configuration.makeStore(environment: environment))
    }
    byRoot[packageRoot.path] = opened
    return opened
  }
}
