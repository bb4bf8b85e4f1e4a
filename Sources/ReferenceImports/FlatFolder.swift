import Foundation

/// A folder of files that a listing names (an export's `manifest.json`, an event stream):
/// each is read by its plain name, never through a link, within the payload limit.
struct FlatFolder {
  let url: URL
  let limits: ImportLimits
  /// What lists the files, for messages ("manifest.json").
  let listedBy: String

  /// The bytes of a listed file.
  func read(_ name: String) throws(ImportError) -> [UInt8] {
    guard AttachmentName.problem(name) == nil else {
      throw ImportError(container: url.path, object: name, reason: "not a plain file name")
    }
    let path = url.appendingPathComponent(name).path
    switch FileStatus.of(path) {
    case .regularFile: break
    case .missing:
      throw ImportError(
        container: url.path, object: name, reason: "listed in \(listedBy) but missing")
    default:
      throw ImportError(
        container: url.path, object: name,
        reason: "not a regular file (a symbolic link is never followed)")
    }
    do { return try FileStatus.read(path, limit: limits.maximumPayloadBytes) } catch {
      throw ImportError(container: url.path, object: name, reason: "cannot be read: \(error)")
    }
  }
}
