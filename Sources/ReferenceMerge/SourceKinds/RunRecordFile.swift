import Foundation
import ReferenceArchive
import ReferenceContracts

/// A run record (`GenerationContract.runRecordSuffix`): the manifest of a test process that
/// stored no image, which says what a later run passed. It is read as an archive holding only
/// its manifest.
public struct RunRecordFile: MergeSourceKind {
  /// The record's file.
  public let url: URL

  public var description: String { url.path }
  public var fileURL: URL { url }

  /// Opens a file named as a run record.
  public static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]? {
    guard !argument.isFolder,
      argument.url.lastPathComponent.hasSuffix(GenerationContract.runRecordSuffix)
    else { return nil }
    return [MergeSource(RunRecordFile(url: argument.url))]
  }

  public func forEachEntry(
    limits: ArchiveLimits, wantsData: (String) -> Bool,
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    let (kind, size) = try SourceReader.status(of: url)
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

  public func manifestMayFollowImages() -> Bool { true }
}
