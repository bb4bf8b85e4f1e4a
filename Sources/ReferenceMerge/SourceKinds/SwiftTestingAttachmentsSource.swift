import Foundation
import ReferenceImports

/// A Swift Testing `--attachments-path` folder with its event streams
/// (`SwiftTestingAttachments`): the renders of one test's failed comparisons, each landing
/// only over the reference it was compared with, or an archive of this package attached to
/// the test.
public struct SwiftTestingAttachmentsSource: ImportedSourceKind {
  public let imported: ImportedSource
  /// The event streams of its folder, by file name.
  public let streams: [String]

  public static let proves =
    "Swift Testing attachments hold the renders of failed comparisons only, no manifest, "
    + "so they prove nothing about orphans"

  /// Opens a folder that holds an event stream; refuses failure images without one, which
  /// name no test.
  public static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]? {
    guard argument.isFolder else { return nil }
    switch SwiftTestingAttachments.recognize(argument.url) {
    case .missingStream(let example):
      throw .refusedEntry(
        source: argument.url.path, entry: example,
        reason: SwiftTestingAttachments.missingStreamReason(folder: argument.url))
    case .attachments(let streams):
      guard let folder = folder(argument) else { return nil }
      return try sources(of: argument) { limits, _ throws(ImportError) in
        try SwiftTestingAttachments(url: folder, streams: streams, limits: limits).sources()
          .map { Self(imported: $0, streams: streams) }
      }
    case .unrelated:
      return nil
    }
  }

  public func reader(limits: ImportLimits) -> AttachmentReader {
    .swiftTestingAttachments(imported.url, streams: streams, limits: limits)
  }
}
