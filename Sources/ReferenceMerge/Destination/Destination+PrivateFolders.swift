import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Folders directly below the root for files that are not references yet (the staging of a
/// merge), made and removed without following links.
extension Destination {
  /// Creates a new folder directly below the root, for files that are not references yet.
  func makePrivateFolder(_ name: String) throws(MergeError) -> Int32 {
    guard calls.makeFolderAt(rootHandle, name) == 0 else {
      throw .io(operation: "create the folder", path: fullPath(name), message: Self.reason())
    }
    let handle = calls.openAt(rootHandle, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    guard handle >= 0 else {
      throw .io(operation: "open the folder", path: fullPath(name), message: Self.reason())
    }
    return handle
  }

  /// Removes the folders directly below the root whose names start with `prefix`, and
  /// everything in them, without following links.
  func removePrivateFolders(prefix: String) {
    for entry in calls.list(rootHandle) ?? [] where entry.name.hasPrefix(prefix) {
      removeTree(entry.name, in: rootHandle)
    }
  }

  /// Removes a private folder given its open handle.
  func removePrivateFolder(_ name: String, handle: Int32) {
    removeContents(of: handle)
    _ = calls.close(handle)
    _ = calls.unlinkAt(rootHandle, name, true)
  }

  private func removeTree(_ name: String, in parent: Int32) {
    let handle = calls.openAt(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    guard handle >= 0 else {
      _ = calls.unlinkAt(parent, name, false)
      return
    }
    removeContents(of: handle)
    _ = calls.close(handle)
    _ = calls.unlinkAt(parent, name, true)
  }

  private func removeContents(of folder: Int32) {
    for entry in calls.list(folder) ?? [] {
      if entry.kind == .folder
        || (entry.kind == nil
          && calls.statAt(folder, entry.name)?.kind
            == .folder)
      {
        removeTree(entry.name, in: folder)
      } else {
        _ = calls.unlinkAt(folder, entry.name, false)
      }
    }
  }
}
