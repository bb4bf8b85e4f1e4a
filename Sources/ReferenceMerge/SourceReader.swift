import Foundation
import ReferenceArchive
import ReferenceContracts

/// Reads the entries of any `MergeSource` the same way, one entry in memory at a time.
package struct SourceReader {
  package let limits: ArchiveLimits

  package init(limits: ArchiveLimits) {
    self.limits = limits
  }

  /// Calls `body` for every entry of a source, as its kind lists them (zip entries, or files
  /// below a folder, the manifest first).
  /// - Parameter wantsData: Asked per path; entries it declines arrive without their bytes.
  package func forEachEntry(
    of source: MergeSource, wantsData: (String) -> Bool = { _ in true },
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    try source.kind.forEachEntry(limits: limits, wantsData: wantsData, body)
  }

  /// The kind of a file, without following links.
  package static func kind(of url: URL) throws(MergeError) -> ArchiveEntry.Kind {
    try status(of: url).kind
  }

  /// The kind and size of a file, without following links, from one `lstat(2)` (FileManager's
  /// attributes also look up owner and group names, which costs more than the merge itself
  /// when done for every path component of thousands of files).
  package static func status(of url: URL) throws(MergeError) -> (
    kind: ArchiveEntry.Kind, size: Int
  ) {
    try status(atPath: url.path)
  }

  /// `status(of:)` for a path string, which spares building a URL per path component.
  package static func status(atPath path: String) throws(MergeError) -> (
    kind: ArchiveEntry.Kind, size: Int
  ) {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      throw .io(operation: "inspect", path: path, message: String(cString: strerror(errno)))
    }
    let kind: ArchiveEntry.Kind
    switch info.st_mode & S_IFMT {
    case S_IFREG: kind = .regularFile
    case S_IFDIR: kind = .directory
    case S_IFLNK: kind = .symbolicLink
    default: kind = .special
    }
    return (kind, Int(info.st_size))
  }
}
