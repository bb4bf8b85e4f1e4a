import Foundation
import ReferenceImports

/// A folder `xcresulttool export attachments` wrote (`AttachmentExport`): the placed PNG
/// attachments of one render context, or an archive of this package attached to the run.
public struct AttachmentExportSource: ImportedSourceKind {
  public let imported: ImportedSource

  public static let proves =
    "an attachment export holds no manifest or shard record, so it proves nothing about "
    + "orphans"

  /// Opens a folder whose `manifest.json` lists exported attachments.
  public static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]? {
    guard let folder = folder(argument), AttachmentExport.recognizes(folder) else { return nil }
    return try sources(of: argument) { limits, destination throws(ImportError) in
      try AttachmentExport(url: folder, limits: limits).sources(destination: destination)
        .map(Self.init)
    }
  }

  public func reader(limits: ImportLimits) -> AttachmentReader {
    .attachmentExport(imported.url, limits: limits)
  }
}
