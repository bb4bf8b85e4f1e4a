import Foundation
import ReferenceArchive
import ReferenceContracts

/// One source `merge-refs` reads from a result bundle or an attachment export: either this
/// package's archive attached by the Apple coordinator, or the placed PNG attachments of one
/// render context (configuration, device, arguments, repetition). Attachments of one name in
/// different contexts are in different sources, so the merge lands equal pixels once and
/// names both contexts in a conflict.
public struct ImportedSource: Sendable, Hashable, CustomStringConvertible {
  /// The bundle or export it comes from.
  public enum Container: Sendable, Hashable {
    case resultBundle(URL)
    case attachmentExport(URL)
    /// A worker's swift-snapshot-testing `__Snapshots__` tree.
    case snapshotTree(URL)
    /// A Swift Testing `--attachments-path` folder and the event streams in it.
    case swiftTestingAttachments(URL, streams: [String])

    public var url: URL {
      switch self {
      case .resultBundle(let url), .attachmentExport(let url), .snapshotTree(let url),
        .swiftTestingAttachments(let url, _):
        url
      }
    }

    /// The bytes of one of its attachments, checked (bundle payloads against their content id).
    func payload(_ attachment: ImportedAttachment, limits: ImportLimits) throws(ImportError)
      -> [UInt8]
    {
      switch (self, attachment.payload) {
      case (.resultBundle(let url), .object(let id)):
        // The object store alone: the bundle's Info.plist was read when it was listed.
        try ObjectStore(bundle: url, limits: limits).payload(id)
      case (.attachmentExport(let url), .file(let name)):
        try AttachmentExport(url: url, limits: limits).payload(name)
      case (.snapshotTree(let url), .treeFile(let path)):
        try SnapshotTree(url: url, limits: limits).read(path)
      case (.swiftTestingAttachments(let url, let streams), .file(let name)):
        try SwiftTestingAttachments(url: url, streams: streams, limits: limits).payload(name)
      default:
        throw ImportError(
          container: url.path, object: attachment.name,
          reason: "its payload is not of this container's kind")
      }
    }

    /// The first bytes of one of its attachments, checked as `payload` checks them, to tell
    /// what it holds.
    func payloadPrefix(_ attachment: ImportedAttachment, count: Int, limits: ImportLimits)
      throws(ImportError) -> [UInt8]
    {
      switch (self, attachment.payload) {
      case (.resultBundle(let url), .object(let id)):
        try ObjectStore(bundle: url, limits: limits).payloadPrefix(id, count: count)
      default:
        Array(try payload(attachment, limits: limits).prefix(count))
      }
    }

    /// What the container says about completeness: it lists attachments, never which tests
    /// were planned, so it proves nothing about orphans.
    var proves: String {
      switch self {
      case .resultBundle:
        "a result bundle holds no manifest or shard record, so it proves nothing about orphans"
      case .attachmentExport:
        "an attachment export holds no manifest or shard record, so it proves nothing about "
          + "orphans"
      case .snapshotTree:
        "a __Snapshots__ tree holds no manifest, so it proves nothing about orphans"
      case .swiftTestingAttachments:
        "Swift Testing attachments hold the renders of failed comparisons only, no manifest, "
          + "so they prove nothing about orphans"
      }
    }
  }

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

  public let container: Container
  public let content: Content
  /// The render context (or the archive's test and context), for messages.
  public let label: String
  /// Attachments of the container that land nowhere, each with why: carried by its first
  /// source, so every run of the merge lists them once.
  public internal(set) var notLanded: [String]

  public var description: String {
    switch content {
    case .images: label.isEmpty ? container.url.path : "\(container.url.path) [\(label)]"
    case .archive(let attachment):
      "\(container.url.path)!\(attachment.name) [\(attachment.provenance.description)]"
    }
  }

  /// Why the merge counts it incomplete, with everything that was not landed.
  public var incompleteReason: String { incompleteReason(listing: nil) }

  /// Why the merge counts it incomplete, with the first `limit` of what was not landed and
  /// how many more there are (a bundle's UI tests can leave hundreds of screenshots); every
  /// entry when `limit` is nil.
  public func incompleteReason(listing limit: Int?) -> String {
    guard !notLanded.isEmpty else { return container.proves }
    let shown = limit.map { Array(notLanded.prefix($0)) } ?? notLanded
    var lines = shown.map { "\n  - " + $0 }
    if shown.count < notLanded.count {
      lines.append(
        "\n  … and \(notLanded.count - shown.count) more (--json or --verbose lists them)")
    }
    return container.proves + "; not landed (\(notLanded.count)):" + lines.joined()
  }

  /// The bytes of one attachment, checked (bundle payloads against their content id).
  public func payload(_ attachment: ImportedAttachment, limits: ImportLimits) throws(ImportError)
    -> [UInt8]
  {
    try container.payload(attachment, limits: limits)
  }
}
