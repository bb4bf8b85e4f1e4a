import Foundation
import ReferenceArchive
import ReferenceImports

/// What another tool left (`ReferenceImports`): an Xcode result bundle's or an attachment
/// export's placed PNG attachments of one render context, an archive of this package attached
/// to one, a worker's swift-snapshot-testing `__Snapshots__` tree, or a Swift Testing
/// attachment folder's renders of one test.
extension ImportedSource: MergeSourceKind {
  /// Opens a folder `ImportedSources` recognises; refuses Swift Testing's failure images
  /// without their event stream.
  public static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]? {
    guard argument.isFolder else { return nil }
    if let refusal = ImportedSources.refusal(of: argument.url) {
      throw .refusedEntry(source: refusal.container, entry: refusal.object, reason: refusal.reason)
    }
    guard let container = ImportedSources.container(at: argument.url) else { return nil }
    let root =
      argument.destination ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    do {
      return try ImportedSources.sources(
        of: container, destination: root, limits: ImportLimits(archiveLimits: argument.limits)
      ).map(MergeSource.init)
    } catch {
      throw .refusedEntry(source: error.container, entry: error.object, reason: error.reason)
    }
  }

  /// Its placed attachments at their paths, or the entries of its attached archive. Every
  /// payload is checked (against its content id, in a bundle) before use.
  public func forEachEntry(
    limits: ArchiveLimits, wantsData: (String) -> Bool,
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    let importLimits = ImportLimits(archiveLimits: limits)
    func payload(_ attachment: ImportedAttachment) throws(MergeError) -> [UInt8] {
      do { return try self.payload(attachment, limits: importLimits) } catch {
        throw .refusedEntry(source: error.container, entry: error.object, reason: error.reason)
      }
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

  /// The references Swift Testing attached beside each failed comparison's render.
  public func forEachComparedReference(
    limits: ArchiveLimits, _ body: (String, [[UInt8]]) throws(MergeError) -> Void
  ) throws(MergeError) {
    guard case .images(let images) = content else { return }
    let importLimits = ImportLimits(archiveLimits: limits)
    for image in images {
      guard let references = image.comparedWith else { continue }
      var bytes: [[UInt8]] = []
      for reference in references {
        do { bytes.append(try payload(reference, limits: importLimits)) } catch {
          throw .refusedEntry(source: error.container, entry: error.object, reason: error.reason)
        }
      }
      try body(image.path, bytes)
    }
  }

  /// An attached archive's manifest may follow images, as a zip's may; placed attachments
  /// have none.
  public func manifestMayFollowImages() -> Bool {
    if case .archive = content { true } else { false }
  }

  /// The kind says itself what it proves, and what of it did not land.
  public var completenessWithoutManifest: String? { incompleteReason }

  public func completenessWithoutManifest(listing limit: Int) -> String? {
    incompleteReason(listing: limit)
  }

  public var fileURL: URL { container.url }
}
