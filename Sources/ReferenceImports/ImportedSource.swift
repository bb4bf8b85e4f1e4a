import Foundation
import ReferenceArchive
import ReferenceContracts

/// One source `merge-refs` reads from what another tool left (a result bundle, an attachment
/// export, a `__Snapshots__` tree, a Swift Testing attachment folder): either this package's
/// archive attached by the Apple coordinator, or the placed PNG attachments of one render
/// context (configuration, device, arguments, repetition). Attachments of one name in
/// different contexts are in different sources, so the merge lands equal pixels once and
/// names both contexts in a conflict. The kind of container is the merge's source kind that
/// holds this value; how its bytes are read is its `AttachmentReader`.
public struct ImportedSource: Sendable, Hashable, CustomStringConvertible {
  /// A placed attachment: its destination path and where its bytes are.
  public struct PlacedImage: Sendable, Hashable {
    public var path: String
    public var attachment: ImportedAttachment
    /// For the render of a failed comparison whose container holds what it was compared with
    /// (Swift Testing's `.reference.png` beside its `.actual.png`): those references, empty
    /// when the run had none. nil when the container does not say.
    public var comparedWith: [ImportedAttachment]?

    public init(
      path: String, attachment: ImportedAttachment, comparedWith: [ImportedAttachment]? = nil
    ) {
      self.path = path
      self.attachment = attachment
      self.comparedWith = comparedWith
    }
  }

  /// What the source holds.
  public enum Content: Sendable, Hashable {
    /// PNG attachments at their destination paths, sorted by path.
    case images([PlacedImage])
    /// An attached archive of this package.
    case archive(ImportedAttachment)
  }

  /// The bundle or folder it comes from.
  public let url: URL
  public let content: Content
  /// The render context (or the archive's test and context), for messages.
  public let label: String
  /// Attachments of the container that land nowhere, each with why: carried by its first
  /// source, so every run of the merge lists them once.
  public internal(set) var notLanded: [String]

  public var description: String {
    switch content {
    case .images: label.isEmpty ? url.path : "\(url.path) [\(label)]"
    case .archive(let attachment):
      "\(url.path)!\(attachment.name) [\(attachment.provenance.description)]"
    }
  }

  /// Whether a path is a folder itself, not a link to one: only such a folder is read as
  /// another tool's.
  public static func isFolder(_ url: URL) -> Bool {
    FileStatus.of(url.path) == .directory
  }

  /// The source with `notes` added to what did not land: what only several sources together
  /// show, said by one of them.
  public func noting(_ notes: [String]) -> ImportedSource {
    var noted = self
    noted.notLanded += notes
    return noted
  }

  /// Why the merge counts it incomplete: what its kind of container `proves`, then the first
  /// `limit` of what was not landed and how many more there are (a bundle's UI tests can leave
  /// hundreds of screenshots); every entry when `limit` is nil.
  public func incompleteReason(proves: String, listing limit: Int?) -> String {
    guard !notLanded.isEmpty else { return proves }
    let shown = limit.map { Array(notLanded.prefix($0)) } ?? notLanded
    var lines = shown.map { "\n  - " + $0 }
    if shown.count < notLanded.count {
      lines.append(
        "\n  … and \(notLanded.count - shown.count) more (--json or --verbose lists them)")
    }
    return proves + "; not landed (\(notLanded.count)):" + lines.joined()
  }
}
