import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImports

/// Reads the entries of any `MergeSource` the same way, one entry in memory at a time.
package struct SourceReader {
  package let limits: ArchiveLimits

  package init(limits: ArchiveLimits) {
    self.limits = limits
  }

  /// Calls `body` for every entry (zip entries, or files below a folder, the manifest first).
  /// - Parameter wantsData: Asked per path; entries it declines arrive without their bytes.
  package func forEachEntry(
    of source: MergeSource, wantsData: (String) -> Bool = { _ in true },
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    let reader = ZipReader(limits: limits)
    switch source.location {
    case .zip(let url):
      try forEachEntry(ofZip: url, wantsData: wantsData, body)
    case .nestedZip(let outer, let entryPath):
      var inner: [UInt8]?
      try MergeError.catching { () throws(ArchiveError) in
        try reader.forEachEntry(in: .file(outer)) { entry in
          if entry.path == entryPath && inner == nil { inner = entry.bytes }
        }
      }
      guard let inner else {
        throw .io(operation: "find \(entryPath) inside", path: outer.path, message: "no such entry")
      }
      try reader.forEachEntry(
        in: .memory(inner, name: source.description), wantsData: wantsData,
        failure: MergeError.archive, body)
    case .folder(let url):
      try forEachFile(below: url, wantsData: wantsData, body)
    case .imported(let imported):
      try forEachEntry(of: imported, wantsData: wantsData, body)
    case .runRecord(let url):
      // A record is a manifest alone, and is read as an archive holding only its manifest.
      let (kind, size) = try Self.status(of: url)
      guard kind == .regularFile else {
        throw .refusedEntry(
          source: url.path, entry: ArchiveManifest.entryName, reason: "not a regular file")
      }
      guard size <= limits.maximumEntryBytes else {
        throw .archive(
          .tooLarge(
            source: url.path, entry: nil,
            reason: "\(size) bytes, over the \(limits.maximumEntryBytes)-byte limit"))
      }
      let bytes = try MergeError.catching { () throws(ArchiveError) in try FileSystem.read(url) }
      try body(ArchiveEntry(path: ArchiveManifest.entryName, kind: .regularFile, bytes: bytes))
    }
  }

  /// An imported source's entries: its placed attachments at their paths, or the entries of
  /// its attached archive. Every payload is checked (against its content id, in a bundle)
  /// before use.
  private func forEachEntry(
    of source: ImportedSource, wantsData: (String) -> Bool,
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    let importLimits = ImportLimits(archiveLimits: limits)
    func payload(_ attachment: ImportedAttachment) throws(MergeError) -> [UInt8] {
      do { return try source.payload(attachment, limits: importLimits) } catch {
        throw .refusedEntry(source: error.container, entry: error.object, reason: error.reason)
      }
    }
    switch source.content {
    case .images(let images):
      for image in images {
        let bytes = wantsData(image.path) ? try payload(image.attachment) : []
        try body(ArchiveEntry(path: image.path, kind: .regularFile, bytes: bytes))
      }
    case .archive(let attachment):
      try ZipReader(limits: limits).forEachEntry(
        in: .memory(try payload(attachment), name: source.description), wantsData: wantsData,
        failure: MergeError.archive, body)
    }
  }

  /// A zip's entries. When its manifest comes first and, once it is read, no other entry's
  /// data is wanted (a rerun into an up-to-date tree), the rest is listed from the central
  /// directory, without visiting each entry (libarchive reads a 64 KiB block per entry it
  /// visits, even to skip it).
  private func forEachEntry(
    ofZip url: URL, wantsData: (String) -> Bool,
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    let reader = ZipReader(limits: limits)
    guard let listing = ZipDirectory.entries(in: url),
      listing.first?.path == ArchiveManifest.entryName,
      listing.count <= limits.maximumEntryCount,
      let manifest = try MergeError.catching({ () throws(ArchiveError) in
        try reader.firstEntry(in: .file(url))
      }),
      manifest.path == ArchiveManifest.entryName
    else {
      try reader.forEachEntry(
        in: .file(url), wantsData: wantsData, failure: MergeError.archive, body)
      return
    }
    try body(manifest)
    let rest = listing.dropFirst()
    if rest.allSatisfy({ !wantsData($0.path) }) {
      for entry in rest {
        // Asked again right before each entry, as a full read does.
        _ = wantsData(entry.path)
        try body(entry)
      }
      return
    }
    var isFirst = true
    try reader.forEachEntry(
      in: .file(url), wantsData: { !isFirst && wantsData($0) }, failure: MergeError.archive
    ) { (entry) throws(MergeError) in
      guard !isFirst else {
        isFirst = false
        return
      }
      try body(entry)
    }
  }

  /// Walks a folder in sorted order. Temporary files of interrupted writes are skipped: they
  /// are by definition incomplete.
  private func forEachFile(
    below root: URL, wantsData: (String) -> Bool,
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    guard let enumerator = FileManager.default.enumerator(atPath: root.path) else {
      throw .io(operation: "list the folder", path: root.path, message: "cannot be read")
    }
    // The manifest first, as in archives, so it can vouch for the images that follow.
    let paths = enumerator.compactMap { $0 as? String }.sorted {
      ($0 == ArchiveManifest.entryName ? 0 : 1, $0) < ($1 == ArchiveManifest.entryName ? 0 : 1, $1)
    }
    guard paths.count <= limits.maximumEntryCount else {
      throw .archive(
        .tooLarge(
          source: root.path, entry: nil, reason: "more than \(limits.maximumEntryCount) files"))
    }
    for path in paths {
      let name = (path as NSString).lastPathComponent
      if name.hasPrefix(FileSystem.temporaryPrefix)
        || name.hasSuffix(GenerationContract.partialSuffix)
      {
        continue
      }
      let url = root.appendingPathComponent(path)
      let (kind, size) = try Self.status(of: url)
      if kind == .directory { continue }
      var bytes: [UInt8] = []
      if kind == .regularFile && wantsData(path) {
        guard size <= limits.maximumEntryBytes else {
          throw .archive(
            .tooLarge(
              source: root.path, entry: path,
              reason: "\(size) bytes, over the \(limits.maximumEntryBytes)-byte limit"))
        }
        bytes = try MergeError.catching { () throws(ArchiveError) in try FileSystem.read(url) }
      }
      try body(ArchiveEntry(path: path, kind: kind, bytes: bytes))
    }
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
