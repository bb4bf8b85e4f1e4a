import Foundation
import ReferenceArchive
import ReferenceContracts

/// One source of images for `merge-refs`, of any `MergeSourceKind`: a coordinator archive, an
/// archive nested inside an artifact zip, a folder (an unpacked archive, or the staging folder
/// of a run that crashed), a run record, or what another tool left.
public struct MergeSource: Sendable, Hashable, CustomStringConvertible {
  /// What the source is, and how it is read.
  public let kind: any MergeSourceKind

  /// A source of a kind.
  public init(_ kind: some MergeSourceKind) {
    self.kind = kind
  }

  /// The kinds a command-line argument may be, asked in this order: the first that opens it
  /// says what sources it is. Folders that other tools wrote are recognised before a folder
  /// is taken for a staging folder (a result bundle before an export, a Swift Testing folder
  /// before a tree), and run records before a file is taken for a zip.
  public static let kinds: [any MergeSourceKind.Type] = [
    ResultBundleSource.self, AttachmentExportSource.self, SwiftTestingAttachmentsSource.self,
    SnapshotTreeSource.self, StagingFolder.self, RunRecordFile.self, ArchiveFile.self,
  ]

  /// A command-line argument being opened, with what its kind may need to know.
  public struct Argument: Sendable {
    /// The file or folder, standardized.
    public var url: URL
    /// Whether it is a folder.
    public var isFolder: Bool
    /// The limits of the merge.
    public var limits: ArchiveLimits
    /// The package merged into, whose `__Snapshots__` folders place the snapshots of result
    /// bundles and exports; the current folder when not given.
    public var destination: URL?
  }

  /// A name for messages: the path, with `!entry` for nested archives.
  public var description: String { kind.description }

  public static func == (lhs: MergeSource, rhs: MergeSource) -> Bool {
    lhs.kind.isEqual(to: rhs.kind)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(type(of: kind)))
    kind.hash(into: &hasher)
  }

  /// Expands a command-line argument into sources: the first of `kinds` that opens it says
  /// what they are (a zip holding zips yields one source per inner zip; a folder holding zip
  /// files and no PNGs yields one source per zip; a result bundle or attachment export yields
  /// its attached archives and its placed PNG attachments by render context).
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
    let argument = Argument(
      url: url, isFolder: isFolder.boolValue, limits: limits, destination: destination)
    for kind in kinds {
      if let sources = try kind.open(argument) { return sources }
    }
    throw .io(operation: "read the source", path: url.path, message: "no kind of source reads it")
  }

  /// The sources with what only several of them together show (workers whose
  /// swift-snapshot-testing counters disagree), said by the first source it concerns: each
  /// kind's `crossChecked`.
  public static func crossChecked(_ sources: [MergeSource]) -> [MergeSource] {
    kinds.reduce(sources) { checked, kind in kind.crossChecked(checked) }
  }
}
