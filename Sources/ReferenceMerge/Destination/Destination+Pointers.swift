import CSystemCalls
import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceStore

/// A package with a store (`ReferenceStore.json`) keeps each reference as a pointer file
/// beside where its PNG would be (`chart.png.ref` for `chart.png`); the PNG is in the store.
/// Reading a reference reads its PNG when the tree still has one (a tree may be half
/// migrated), else its pointer; writing one uploads the PNG, checks the store holds it, and
/// only then writes the pointer, so no merge, however it ends, leaves a pointer to a missing
/// object.
extension Destination {
  /// The pointer of a reference, nil when the package has no store, there is no pointer, or
  /// it is not a valid one (`checkWritable` names what is wrong with it).
  func pointer(_ path: String) -> ReferencePointer? {
    guard storedReferences != nil else { return nil }
    return try? readPointer(path)
  }

  /// The pointer file of a reference, parsed; nil when there is none.
  /// - Throws: `MergeError.store` naming the file when it is not a valid pointer.
  func readPointer(_ path: String) throws(MergeError) -> ReferencePointer? {
    let pointerPath = ReferencePointer.path(for: path)
    guard let (bytes, _) = read(pointerPath) else { return nil }
    do {
      return try ReferencePointer(parsing: bytes, path: fullPath(pointerPath))
    } catch {
      throw .store(error)
    }
  }

  /// Refuses a reference that is both a PNG and a pointer, or whose pointer is not valid.
  func checkPointer(_ path: String) throws(MergeError) {
    guard try readPointer(path) != nil else { return }
    guard try status(path)?.kind != .regularFile else {
      throw .refusedEntry(
        source: root.path, entry: path,
        reason:
          "both \(path) and its pointer \(ReferencePointer.path(for: path)) exist; keep one "
          + "(`git rm` the other) and merge again")
    }
  }

  /// The PNG bytes of a reference: its file, else the object its pointer names (from the
  /// cache or the store); nil when there is neither or the object cannot be had.
  package func referenceBytes(_ path: String) -> [UInt8]? {
    if let bytes = read(path)?.bytes { return bytes }
    guard let pointer = pointer(path), let storedReferences else { return nil }
    return try? storedReferences.png(pointer, at: fullPath(ReferencePointer.path(for: path)))
  }

  /// How many objects this merge uploaded to the store.
  package var uploadedObjects: Int { storedReferences?.uploads ?? 0 }

  /// Lands a PNG as a pointer: the object first, then the pointer, then the PNG left from
  /// before the store (a migrating tree) is removed.
  func writePointer(for png: [UInt8], to path: String) throws(MergeError) {
    guard let storedReferences else { return }
    let pointer: ReferencePointer
    do {
      pointer = try storedReferences.upload(png, path: fullPath(path))
    } catch {
      throw .store(error)
    }
    try writePointerFile(pointer, to: path)
  }

  /// Writes a pointer whose object is stored, then removes the PNG left from before the store.
  private func writePointerFile(_ pointer: ReferencePointer, to path: String) throws(MergeError) {
    let bytes = pointer.bytes
    try writeFile(
      bytes, to: ReferencePointer.path(for: path), digest: SHA256Digest(of: bytes))
    if try status(path)?.kind == .regularFile { try remove(path, keepingPointer: true) }
  }

  /// Renames a staged file to a path unless a file is there: one call where the kernel has
  /// renameat2, else a `stat` and a rename.
  private func placeNoReplace(
    _ privateFolder: Int32, _ name: String, in folder: Int32, at target: String
  ) -> StoredReferences.Placing {
    let renamed = name.withCString { from in
      target.withCString { ri_rename_no_replace(privateFolder, from, folder, $0) }
    }
    if renamed == 0 { return .moved }
    if errno == EEXIST { return .present }
    if errno != ENOSYS && errno != EINVAL { return .refused }
    if calls.statAt(folder, target) != nil { return .present }
    return calls.renameAt(privateFolder, name, folder, target) == 0 ? .moved : .refused
  }

  /// Lands a staged PNG as a pointer; the staged file is removed.
  /// - Parameter digest: The staged file's SHA-256, checked when it was staged.
  func movePointerIn(
    from privateFolder: Int32, _ privateName: String, to path: String, digest: SHA256Digest
  ) throws(MergeError) {
    let handle = calls.openAt(privateFolder, privateName, O_RDONLY | O_NOFOLLOW)
    guard handle >= 0 else {
      throw .io(operation: "read the staged image", path: path, message: Self.reason())
    }
    let status = calls.statHandle(handle)
    let bytes = status.flatMap { calls.readAll(handle, size: $0.size) }
    _ = calls.close(handle)
    guard let bytes, let storedReferences else {
      throw .io(operation: "read the staged image", path: path, message: Self.reason())
    }
    let adopted: (pointer: ReferencePointer, moved: Bool)
    do {
      let key = ObjectKey(digest.hex) ?? ObjectKey(of: bytes)
      adopted = try storedReferences.adopt(bytes, key: key, path: fullPath(path)) {
        folder, target in
        placeNoReplace(privateFolder, privateName, in: folder, at: target)
      }
    } catch {
      throw .store(error)
    }
    try writePointerFile(adopted.pointer, to: path)
    if !adopted.moved { _ = calls.unlinkAt(privateFolder, privateName, false) }
  }
}
