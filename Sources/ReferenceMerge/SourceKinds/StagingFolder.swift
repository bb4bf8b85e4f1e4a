import Foundation
import ReferenceArchive
import ReferenceContracts

/// A folder whose files sit at their package-relative paths: the staging folder of a run that
/// crashed, or an unpacked archive.
public struct StagingFolder: MergeSourceKind {
  /// The folder.
  public let url: URL

  public var description: String { url.path + "/" }
  public var fileURL: URL { url }

  /// Opens any folder: a shard's output folder is its archives; an archive output folder
  /// holding archives, `.staging/<run>/` folders or run records (and no images of its own) is
  /// each of those; any other folder is one staging folder.
  public static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]? {
    guard argument.isFolder else { return nil }
    return try expandFolder(argument.url, limits: argument.limits)
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
        sources += try MergeSource.expand(url.appendingPathComponent(zip).path, limits: limits)
      }
      sources += stagingRuns.map {
        MergeSource(StagingFolder(url: stagingRoot.appendingPathComponent($0)))
      }
      sources += records.map { MergeSource(RunRecordFile(url: url.appendingPathComponent($0))) }
      return sources
    }
    return [MergeSource(StagingFolder(url: url))]
  }

  /// Whether a folder holds PNG files of its own: not in `.staging/` runs, and not in a review
  /// report (a CI artifact holds the report beside the archives it shows).
  private static func holdsImages(_ url: URL) -> Bool {
    guard let walk = FileManager.default.enumerator(atPath: url.path) else { return false }
    while let path = walk.nextObject() as? String {
      let isFolder = FileSystem.isFolder(url.appendingPathComponent(path).path)
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

  /// Walks the folder in sorted order, the manifest first, as in archives, so it can vouch
  /// for the images that follow. Temporary files of interrupted writes are skipped: they are
  /// by definition incomplete.
  public func forEachEntry(
    limits: ArchiveLimits, wantsData: (String) -> Bool,
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    let root = url
    guard let enumerator = FileManager.default.enumerator(atPath: root.path) else {
      throw .io(operation: "list the folder", path: root.path, message: "cannot be read")
    }
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
      let (kind, size) = try SourceReader.status(of: url)
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

  /// A folder's manifest is read first.
  public func manifestMayFollowImages() -> Bool { false }
}
