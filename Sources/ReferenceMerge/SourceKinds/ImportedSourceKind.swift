import Foundation
import ReferenceArchive
import ReferenceImports

/// What another tool left, read through `ReferenceImports`: each kind of container (a result
/// bundle, an attachment export, a `__Snapshots__` tree, a Swift Testing attachment folder) is
/// one conformer, which recognises its folder, lists its sources, names its reader and says
/// what it proves. Reading entries, completeness and names are the same for every such kind,
/// and are here.
public protocol ImportedSourceKind: MergeSourceKind {
  /// The source: placed PNG attachments of one render context, or an attached archive of this
  /// package, and what of the container did not land.
  var imported: ImportedSource { get }

  /// Reads the bytes of its attachments within `limits`, checked before use.
  func reader(limits: ImportLimits) -> AttachmentReader

  /// What a container of this kind proves about completeness: it lists attachments, never
  /// which tests were planned, so it proves nothing about orphans.
  static var proves: String { get }
}

extension ImportedSourceKind {
  /// What the source holds.
  public var content: ImportedSource.Content { imported.content }

  /// Attachments of the container that land nowhere, each with why.
  public var notLanded: [String] { imported.notLanded }

  public var description: String { imported.description }

  public var fileURL: URL { imported.url }

  /// Its placed attachments at their paths, or the entries of its attached archive. Every
  /// payload is checked (against its content id, in a bundle) before use.
  public func forEachEntry(
    limits: ArchiveLimits, wantsData: (String) -> Bool,
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    let reader = reader(limits: ImportLimits(archiveLimits: limits))
    func payload(_ attachment: ImportedAttachment) throws(MergeError) -> [UInt8] {
      do { return try reader.payload(attachment) } catch { throw Self.refusal(error) }
    }
    switch content {
    case .images(let images):
      for image in images {
        let bytes = wantsData(image.path) ? try payload(image.attachment) : []
        try body(ArchiveEntry(path: image.path, kind: .regularFile, bytes: bytes))
      }
    case .archive(let attachment):
      try ZipReader(limits: limits).forEachEntry(
        in: .memory(try payload(attachment), name: description), wantsData: wantsData,
        failure: MergeError.archive, body)
    }
  }

  /// The references a container holds beside each failed comparison's render (Swift
  /// Testing's), as `ImportedSource.PlacedImage.comparedWith` lists them.
  public func forEachComparedReference(
    limits: ArchiveLimits, _ body: (String, [[UInt8]]) throws(MergeError) -> Void
  ) throws(MergeError) {
    guard case .images(let images) = content else { return }
    let reader = reader(limits: ImportLimits(archiveLimits: limits))
    for image in images {
      guard let references = image.comparedWith else { continue }
      var bytes: [[UInt8]] = []
      for reference in references {
        do { bytes.append(try reader.payload(reference)) } catch { throw Self.refusal(error) }
      }
      try body(image.path, bytes)
    }
  }

  /// An attached archive's manifest may follow images, as a zip's may; placed attachments
  /// have none.
  public func manifestMayFollowImages() -> Bool {
    if case .archive = content { true } else { false }
  }

  /// What the kind proves, and what of the container did not land.
  public var completenessWithoutManifest: String? {
    imported.incompleteReason(proves: Self.proves, listing: nil)
  }

  public func completenessWithoutManifest(listing limit: Int) -> String? {
    imported.incompleteReason(proves: Self.proves, listing: limit)
  }

  /// The folder an argument names when it is a folder itself, never a link to one: only such
  /// a folder is read as another tool's.
  static func folder(_ argument: MergeSource.Argument) -> URL? {
    argument.isFolder && ImportedSource.isFolder(argument.url) ? argument.url : nil
  }

  /// The sources `list` makes of an argument of this kind, within the merge's limits.
  /// - Parameter list: Lists the container, given the limits and the package merged into
  ///   (the current folder when the argument names none).
  /// - Throws: `MergeError.refusedEntry` naming the container's object that is refused.
  static func sources(
    of argument: MergeSource.Argument,
    _ list: (_ limits: ImportLimits, _ destination: URL) throws(ImportError) -> [Self]
  ) throws(MergeError) -> [MergeSource] {
    let destination =
      argument.destination ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    do {
      return try list(ImportLimits(archiveLimits: argument.limits), destination)
        .map(MergeSource.init)
    } catch {
      throw refusal(error)
    }
  }

  /// A container's refusal, as the merge reports it.
  static func refusal(_ error: ImportError) -> MergeError {
    .refusedEntry(source: error.container, entry: error.object, reason: error.reason)
  }
}
