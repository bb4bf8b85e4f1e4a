import Foundation

/// Reads the entries of any `MergeSource` the same way, one entry in memory at a time.
struct SourceReader {
  let limits: ArchiveLimits

  /// Calls `body` for every entry (zip entries, or files below a folder).
  func forEachEntry(
    of source: MergeSource, _ body: (ArchiveEntry) throws(ArchiveError) -> Void
  ) throws(ArchiveError) {
    let reader = ZipReader(limits: limits)
    switch source.location {
    case .zip(let url):
      try reader.forEachEntry(in: .file(url), body)
    case .nestedZip(let outer, let entryPath):
      var inner: [UInt8]?
      try reader.forEachEntry(in: .file(outer)) { entry in
        if entry.path == entryPath && inner == nil { inner = entry.bytes }
      }
      guard let inner else {
        throw .io(operation: "find \(entryPath) inside", path: outer.path, message: "no such entry")
      }
      try reader.forEachEntry(in: .memory(inner, name: source.description), body)
    case .folder(let url):
      try forEachFile(below: url, body)
    }
  }

  /// Walks a folder in sorted order. Temporary files of interrupted writes are skipped: they
  /// are by definition incomplete.
  private func forEachFile(
    below root: URL, _ body: (ArchiveEntry) throws(ArchiveError) -> Void
  ) throws(ArchiveError) {
    guard let enumerator = FileManager.default.enumerator(atPath: root.path) else {
      throw .io(operation: "list the folder", path: root.path, message: "cannot be read")
    }
    let paths = enumerator.compactMap { $0 as? String }.sorted()
    guard paths.count <= limits.maximumEntryCount else {
      throw .tooLarge(
        source: root.path, entry: nil, reason: "more than \(limits.maximumEntryCount) files")
    }
    for path in paths {
      let name = (path as NSString).lastPathComponent
      if name.hasPrefix(FileSystem.temporaryPrefix) || name.hasSuffix(".partial") { continue }
      let url = root.appendingPathComponent(path)
      let kind = try Self.kind(of: url)
      if kind == .directory { continue }
      var bytes: [UInt8] = []
      if kind == .regularFile {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        guard size <= limits.maximumEntryBytes else {
          throw .tooLarge(
            source: root.path, entry: path,
            reason: "\(size) bytes, over the \(limits.maximumEntryBytes)-byte limit")
        }
        bytes = try FileSystem.read(url)
      }
      try body(ArchiveEntry(path: path, kind: kind, bytes: bytes))
    }
  }

  /// The kind of a file, without following links.
  static func kind(of url: URL) throws(ArchiveError) -> ArchiveEntry.Kind {
    let attributes: [FileAttributeKey: Any]
    do {
      attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    } catch {
      throw .io(operation: "inspect", path: url.path, message: FileSystem.reason(error))
    }
    switch attributes[.type] as? FileAttributeType {
    case .typeRegular: return .regularFile
    case .typeDirectory: return .directory
    case .typeSymbolicLink: return .symbolicLink
    default: return .special
    }
  }
}
