import Foundation
import ReferenceArchive
import ReferenceImageCore

/// The SHA-256 of each destination file a merge asks about, read once and remembered, so that
/// sources, planner and report agree on what the destination holds.
final class DestinationIndex {
  let root: URL
  private var digests: [String: String?] = [:]

  init(root: URL) {
    self.root = root
  }

  /// The PNG bytes' SHA-256 of the file at a package-relative path, or nil when there is none.
  func pngSHA256(_ path: String) -> String? {
    if let known = digests[path] { return known }
    let url = root.appendingPathComponent(path)
    let digest =
      FileSystem.isRegularFile(url.path)
      ? (try? FileSystem.read(url)).map { SHA256.hex($0) } : nil
    digests[path] = digest
    return digest
  }
}
