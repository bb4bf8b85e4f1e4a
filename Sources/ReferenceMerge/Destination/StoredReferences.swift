import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceStore

/// The store of a package whose references live outside its repository (`ReferenceStore.json`
/// at its root): what the destination asks when a reference is a pointer, and what it uploads
/// before writing one.
///
/// The store is opened on first use, so a merge that writes nothing and reads no object needs
/// neither credentials nor the network. Each object is uploaded at most once per merge, however
/// many paths or sources hold it, and a pointer is written only after its object is known to
/// be in the store.
final class StoredReferences: @unchecked Sendable {
  let configuration: StoreConfiguration
  private let environment: [String: String]
  private let lock = NSLock()
  private var opened: (any ObjectStore)?
  /// The objects this merge knows are in the store.
  private var stored: Set<ObjectKey> = []
  /// The fan-out folders of a folder store this merge made sure of.
  private var madeFans: Set<String> = []
  /// The folder store's folder, once opened (-1 when it could not be).
  private var openedFolder: Int32?
  /// How many objects this merge uploaded (the others were there already).
  private(set) var uploads = 0
  /// Whether each PNG is uploaded in the smallest lossless form (`merge-refs --compact`); set
  /// before the first upload.
  var compacts = false

  init(configuration: StoreConfiguration, environment: [String: String]) {
    self.configuration = configuration
    self.environment = environment
  }

  deinit {
    if let openedFolder, openedFolder >= 0 { close(openedFolder) }
  }

  /// The store, opened once.
  func store() throws(StoreError) -> any ObjectStore {
    lock.lock()
    defer { lock.unlock() }
    if let opened { return opened }
    let store = try configuration.makeStore(environment: environment)
    opened = store
    return store
  }

  /// The cache and the store, for reading objects.
  func objects() -> ObjectCache {
    ObjectCache(
      cache: FolderStore(folder: ObjectCache.defaultFolder(environment: environment)),
      store: try? store())
  }

  /// Puts a PNG in the store unless it is there, and checks that it is.
  /// - Returns: The pointer that names it.
  func upload(_ png: [UInt8], path: String) throws(StoreError) -> ReferencePointer {
    let png =
      compacts
      ? CompactRewrite.decision(forPNG: png, includingOtherTools: false).newBytes ?? png : png
    let pointer: ReferencePointer
    do {
      pointer = try ReferencePointer.make(png: png)
    } catch {
      throw .badPointer(path: path, reason: "its image does not decode: \(error)")
    }
    lock.lock()
    let known = stored.contains(pointer.object)
    lock.unlock()
    if known { return pointer }
    remember(pointer.object, uploaded: try StoredObject.upload(png, to: try store()))
    return pointer
  }

  /// How a staged file's rename into a folder store went.
  enum Placing {
    /// The file is the object now.
    case moved
    /// The store held the object already; the staged file is where it was.
    case present
    /// The file system refused (another device): the staged file is where it was.
    case refused
  }

  /// Puts a staged PNG in a folder store by renaming it there, when the store is a folder on
  /// the same file system and the PNG lands as it is: one rename where an upload writes the
  /// bytes again. Anything else, and a rename the file system refuses, is an upload of `png`;
  /// the staged file is then the caller's to remove.
  /// - Parameters:
  ///   - key: The PNG's SHA-256, checked when it was staged.
  ///   - place: Renames the staged file below a folder unless a file is there.
  /// - Returns: The pointer, and whether the staged file was moved.
  func adopt(
    _ png: [UInt8], key: ObjectKey, path: String, place: (_ folder: Int32, String) -> Placing
  ) throws(StoreError) -> (ReferencePointer, moved: Bool) {
    guard let pointer = ReferencePointer(png: png, key: key) else {
      return (try upload(png, path: path), false)
    }
    switch placeObject(key: key, place: place) {
    case .moved: return (pointer, true)
    case .present: return (pointer, false)
    case .refused: return (try upload(png, path: path), false)
    }
  }

  /// Puts a staged object in a folder store by renaming it there (`<fan>/<key>` below the
  /// store's folder, opened once); `.refused` when the store is not a folder, `--compact`
  /// rewrites objects, or the rename fails. The rename that succeeds has put the whole file
  /// under its name: that is the check.
  /// - Parameter place: Renames the staged file below a folder unless a file is there.
  private func placeObject(key: ObjectKey, place: (_ folder: Int32, String) -> Placing)
    -> Placing
  {
    guard !compacts, let handle = folderHandle() else { return .refused }
    lock.lock()
    let known = stored.contains(key)
    lock.unlock()
    if known { return .present }
    makeFanFolder(FolderStore.fan(of: key), in: handle)
    let placed = place(handle, FolderStore.relativePath(of: key))
    if placed != .refused { remember(key, uploaded: placed == .moved) }
    return placed
  }

  /// The folder store's folder, opened once (made when missing); nil for another store.
  private func folderHandle() -> Int32? {
    guard let folder = try? store() as? FolderStore else { return nil }
    lock.lock()
    defer { lock.unlock() }
    if let openedFolder { return openedFolder >= 0 ? openedFolder : nil }
    try? FileManager.default.createDirectory(at: folder.folder, withIntermediateDirectories: true)
    let handle = open(folder.folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    openedFolder = handle
    return handle >= 0 ? handle : nil
  }

  /// Creates a folder store's fan-out folder once per merge (`mkdir` of a folder that exists
  /// fails harmlessly; the rename after it says whether it worked).
  private func makeFanFolder(_ fan: String, in folder: Int32) {
    lock.lock()
    let known = !madeFans.insert(fan).inserted
    lock.unlock()
    if !known { _ = mkdirat(folder, fan, 0o755) }
  }

  private func remember(_ key: ObjectKey, uploaded: Bool) {
    lock.lock()
    stored.insert(key)
    if uploaded { uploads += 1 }
    lock.unlock()
  }

  /// The PNG a pointer names, from the cache or the store, checked against its key.
  func png(_ pointer: ReferencePointer, at path: String) throws(StoreError) -> [UInt8] {
    try objects().png(for: pointer, at: path)
  }
}
