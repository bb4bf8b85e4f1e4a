import Foundation
import ReferenceArchive
import ReferenceContracts

/// A file of a package tree (a merge's destination) that could not be written or deleted, with
/// what a person needs to fix it: the file, the folder that must be writable, the cause and
/// the fix that works for that cause. A merge replaces each file atomically, so whatever
/// failed, every reference holds either its earlier image or its new one.
public struct WriteFailure: Sendable, Equatable, CustomStringConvertible {
  /// What the merge was doing to the file.
  public enum Action: String, Sendable, Equatable {
    /// Landing an image (added or updated).
    case write
    /// Deleting an orphan (`--prune`).
    case delete
    /// Opening a folder on the way.
    case read
  }

  /// The package root, absolute.
  public var root: String
  /// The file, relative to the package root.
  public var path: String
  /// What the merge was doing to the file.
  public var action: Action
  /// The step that failed, in words ("creating the new file").
  public var step: String
  /// What must be writable, relative to the package root ("" for the root): the folder the
  /// file is written in, and the file itself when it exists and is being replaced or deleted.
  public var mustBeWritable: [String]
  /// The `errno` of the failed call.
  public var code: Int32

  /// Creates a failure.
  public init(
    root: String, path: String, action: Action, step: String, mustBeWritable: [String],
    code: Int32
  ) {
    self.root = root
    self.path = path
    self.action = action
    self.step = step
    self.mustBeWritable = mustBeWritable
    self.code = code
  }

  /// The cause in words: "permission denied", "read-only file system".
  public var cause: String {
    let text = String(cString: strerror(code))
    guard let first = text.first else { return "error \(code)" }
    return first.lowercased() + text.dropFirst()
  }

  /// What to do, as one sentence: for a cause that rerunning alone cannot cure (permissions,
  /// attributes, a read-only mount, a full disk), the fix and then "rerun the merge"; the
  /// command it names works when pasted into the package root.
  public var fix: String {
    let shown = mustBeWritable.map { $0.isEmpty ? "the package root" : $0 }
      .joined(separator: " and ")
    let words = ShellWord.line(mustBeWritable.map { $0.isEmpty ? "." : $0 })
    switch code {
    case EACCES:
      // Replacing or deleting a file needs only its folder's permission, never the file's.
      let folder = mustBeWritable.first ?? ""
      return "make \(folder.isEmpty ? "the package root" : folder) writable (`chmod u+rwx "
        + "\(ShellWord.quoted(folder.isEmpty ? "." : folder))` in the package root, or ask the "
        + "owner), then rerun the merge"
    case EPERM:
      return
        "\(shown) may be immutable or append-only: make \(mustBeWritable.count == 1 ? "it" : "them") "
        + "writable (`chattr -i -a \(words)` as root, in the package root), then rerun the merge"
    case EROFS:
      return "\(root) is on a file system mounted read-only: remount it read-write, or merge "
        + "into a writable checkout, then rerun the merge"
    case ENOSPC, EDQUOT:
      return "free space on the device that holds \(root), then rerun the merge"
    default:
      return "files written so far are complete; rerun the same command to finish"
    }
  }

  public var description: String {
    "could not \(action.rawValue) \(EntryPath.escaped(path)) in \(EntryPath.escaped(root)): "
      + "\(cause) (\(step)); \(fix). Nothing is lost: every reference not written is as it was"
  }
}
