import Foundation
import ReferenceImports

/// An Xcode result bundle read directly (`ResultBundle`): the placed PNG attachments of one
/// render context, or an archive of this package attached to it.
public struct ResultBundleSource: ImportedSourceKind {
  public let imported: ImportedSource

  public static let proves =
    "a result bundle holds no manifest or shard record, so it proves nothing about orphans"

  /// Opens a folder named `.xcresult`, or holding `Info.plist` and `Data`.
  public static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]? {
    guard let folder = folder(argument), ResultBundle.recognizes(folder) else { return nil }
    return try sources(of: argument) { limits, destination throws(ImportError) in
      try ResultBundle(url: folder, limits: limits).sources(destination: destination)
        .map(Self.init)
    }
  }

  public func reader(limits: ImportLimits) -> AttachmentReader {
    .resultBundle(imported.url, limits: limits)
  }
}
