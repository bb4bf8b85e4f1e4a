import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImports

/// One source of images for `merge-refs`: a coordinator archive, an archive nested inside an
/// artifact zip, or a folder (an unpacked archive, or the staging folder of a run that crashed).
public struct MergeSource: Sendable, Hashable, CustomStringConvertible {
  /// Where the bytes are.
  public enum Location: Sendable, Hashable {
    /// A zip file.
    case zip(URL)
    /// A zip stored as an entry of another zip.
    case nestedZip(outer: URL, entry: String)
    /// A folder whose files sit at their package-relative paths.
    case folder(URL)
    /// A run record (`GenerationContract.runRecordSuffix`): the manifest of a test process
    /// that stored no image, which says what a later run passed.
    case runRecord(URL)
    /// What another tool left (`ReferenceImports`): an Xcode result bundle's or an attachment
    /// export's placed PNG attachments of one render context, an archive of this package
    /// attached to one, or a worker's swift-snapshot-testing `__Snapshots__` tree.
    case imported(ImportedSource)
  }

  /// Where the bytes are.
  public let location: Location

  /// A name for messages: the path, with `!entry` for nested archives.
  public var description: String {
    switch location {
    case .zip(let url): url.path
    case .nestedZip(let outer, let entry): "\(outer.path)!\(entry)"
    case .folder(let url): url.path + "/"
    case .runRecord(let url): url.path
    case .imported(let source): source.description
    }
  }

  /// Expands a command-line argument into sources: a zip holding zips yields one source per
  /// inner zip; a folder holding zip files and no PNGs yields one source per zip.
  /// A result bundle or attachment export yields its attached archives and its placed PNG
  /// attachments by render context; a `__Snapshots__` tree yields itself (`ImportedSources`).
  /// - Parameters:
  ///   - path: The argument.
  ///   - destination: The package merged into, whose `__Snapshots__` folders place the
  ///     snapshots of result bundles and exports; the current folder when not given.
  /// - Returns: The sources, in a stable order.
  /// - Throws: `MergeError.io` when the path does not exist, or cannot be read;
  ///   `MergeError.refusedEntry` naming the object of a bundle or export that is refused.
  public static func expand(
    _ path: String, limits: ArchiveLimits = .default, destination: URL? = nil
  ) throws(MergeError) -> [MergeSource] {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
      throw .io(operation: "find the source", path: url.path, message: "no such file or folder")
    }
    if isFolder.boolValue, let refusal = ImportedSources.refusal(of: url) {
      throw .refusedEntry(source: refusal.container, entry: refusal.object, reason: refusal.reason)
    }
    if isFolder.boolValue, let container = ImportedSources.container(at: url) {
      return try imported(container, limits: limits, destination: destination)
    }
    if isFolder.boolValue {
      return try expandFolder(url, limits: limits)
    }
    if url.lastPathComponent.hasSuffix(GenerationContract.runRecordSuffix) {
      return [MergeSource(location: .runRecord(url))]
    }
    var innerZips: [String] = []
    var hasOtherEntries = false
    let sort = { (entry: ArchiveEntry) in
      if entry.path.lowercased().hasSuffix(".zip") && entry.kind == .regularFile {
        innerZips.append(entry.path)
      } else if entry.kind != .directory {
        hasOtherEntries = true
      }
    }
    do {
      // The central directory says it without visiting every entry, which costs libarchive a
      // 64 KiB read per entry.
      if let listing = ZipDirectory.entries(in: url) {
        listing.forEach(sort)
      } else {
        try ZipReader(limits: limits).forEachEntry(in: .file(url), headersOnly: true, sort)
      }
    } catch {
      // A zip that cannot be read (truncated, not a zip) stays one source: reading it fails
      // again, and the planner lists it as a refused source, so `--keep-going` reports it in
      // its exit code and orphans are not looked for without it.
      return [MergeSource(location: .zip(url))]
    }
    if !innerZips.isEmpty && !hasOtherEntries {
      return innerZips.sorted().map { MergeSource(location: .nestedZip(outer: url, entry: $0)) }
    }
    return [MergeSource(location: .zip(url))]
  }

  /// The sources with what only several of them together show (workers whose
  /// swift-snapshot-testing counters disagree), said by the first source it concerns.
  public static func crossChecked(_ sources: [MergeSource]) -> [MergeSource] {
    let imported = sources.compactMap { source -> ImportedSource? in
      if case .imported(let imported) = source.location { imported } else { nil }
    }
    var checked = ImportedSources.crossChecked(imported)[...]
    return sources.map { source in
      guard case .imported = source.location, let next = checked.popFirst() else { return source }
      return MergeSource(location: .imported(next))
    }
  }

  private static func imported(
    _ container: ImportedSource.Container, limits: ArchiveLimits, destination: URL?
  ) throws(MergeError) -> [MergeSource] {
    let root = destination ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    do {
      return try ImportedSources.sources(
        of: container, destination: root, limits: ImportLimits(archiveLimits: limits)
      ).map { MergeSource(location: .imported($0)) }
    } catch {
      throw .refusedEntry(source: error.container, entry: error.object, reason: error.reason)
    }
  }

  private static func expandFolder(_ url: URL, limits: ArchiveLimits) throws(MergeError)
    -> [MergeSource]
  {
    // A shard's output folder (a CI artifact): its images are in the archives beside the
    // record, which is no image source itself. A shard that stored nothing has none.
    if FileManager.default.fileExists(
      atPath: url.appendingPathComponent(GenerationContract.shardRecordName).path)
    {
      let archives = url.appendingPathComponent(GenerationContract.shardArchivesFolderName)
      let names = (try? FileManager.default.contentsOfDirectory(atPath: archives.path)) ?? []
      return names.isEmpty ? [] : try expandFolder(archives, limits: limits)
    }
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: url.path)
    } catch {
      throw .io(operation: "list the folder", path: url.path, message: FileSystem.reason(error))
    }
    let zips = names.filter { $0.lowercased().hasSuffix(".zip") }.sorted()
    let records = names.filter { $0.hasSuffix(GenerationContract.runRecordSuffix) }.sorted()
    // An archive output folder (IMAGE_GENERATION_OUTPUT) holds archives and, after a crash,
    // `.staging/<run>/` folders: each of those is a source of its own, never images at
    // `.staging/...` paths.
    let stagingRoot = url.appendingPathComponent(GenerationContract.stagingFolderName)
    let stagingRuns =
      ((try? FileManager.default.contentsOfDirectory(atPath: stagingRoot.path)) ?? [])
      .filter { (try? SourceReader.kind(of: stagingRoot.appendingPathComponent($0))) == .directory }
      .sorted()
    let hasImagesOrManifest =
      names.contains(ArchiveManifest.entryName) || holdsImages(url)
    if (!zips.isEmpty || !stagingRuns.isEmpty || !records.isEmpty) && !hasImagesOrManifest {
      var sources: [MergeSource] = []
      for zip in zips {
        sources += try expand(url.appendingPathComponent(zip).path, limits: limits)
      }
      sources += stagingRuns.map {
        MergeSource(location: .folder(stagingRoot.appendingPathComponent($0)))
      }
      sources += records.map { MergeSource(location: .runRecord(url.appendingPathComponent($0))) }
      return sources
    }
    return [MergeSource(location: .folder(url))]
  }

  /// Whether a folder holds PNG files of its own: not in `.staging/` runs, and not in a review
  /// report (a CI artifact holds the report beside the archives it shows).
  private static func holdsImages(_ url: URL) -> Bool {
    guard let walk = FileManager.default.enumerator(atPath: url.path) else { return false }
    while let path = walk.nextObject() as? String {
      let isFolder = walk.fileAttributes?[.type] as? FileAttributeType == .typeDirectory
      let isReport =
        isFolder
        && FileManager.default.fileExists(
          atPath: url.appendingPathComponent(path).appendingPathComponent(
            ReportRequest.dataFileName
          ).path)
      if path == GenerationContract.stagingFolderName || isReport {
        walk.skipDescendants()
      } else if path.hasSuffix(".png") {
        return true
      }
    }
    return false
  }
}
