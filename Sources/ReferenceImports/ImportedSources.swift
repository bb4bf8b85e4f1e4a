import Foundation
import ReferenceArchive
import ReferenceContracts

/// Sorts a container's attachments into merge sources: each attached archive of this package,
/// then the placed PNG attachments by render context. When nothing lands, one empty source
/// still lists what was not landed and why.
enum ImportedSources {
  /// The sources of attachments that swift-snapshot-testing recorded (a result bundle's, an
  /// attachment export's), placed by `SnapshotPlacement`.
  /// - Parameter destination: The package being merged into, whose `__Snapshots__` folders
  ///   place swift-snapshot-testing's recorded snapshots.
  static func sources(
    of attachments: [ImportedAttachment], reader: AttachmentReader, placedIn destination: URL
  ) throws(ImportError) -> [ImportedSource] {
    var sorting = Sorting(reader: reader)
    var placement: SnapshotPlacement?
    for attachment in attachments {
      try sorting.take(attachment) {
        placement = placement ?? SnapshotPlacement(destination: destination)
        return placement!.place($0)
      }
    }
    return sorting.sources()
  }

  /// Sorts attachments into archives, placed images by context, and what does not land.
  struct Sorting {
    let reader: AttachmentReader
    /// The context a placed image is grouped by: its render context, or its test and context
    /// where a source per test names the test in a conflict.
    var context: (AttachmentProvenance) -> String = \.context
    var archives: [ImportedAttachment] = []
    /// Placed images by context (by test and context for Swift Testing's attachments); a
    /// context whose path repeats gets a further group, labelled by what tells its renders
    /// apart.
    var groups: [(context: String, images: [String: ImportedSource.PlacedImage])] = []
    var notLanded: [String] = []
    var others: [String: Int] = [:]
    /// Images that land nowhere by their nature, by kind (a failure's reference image).
    var counted: [String: Int] = [:]
    /// What a placed render was compared with, when the container says
    /// (`ImportedSource.PlacedImage.comparedWith`).
    var comparedWith: (ImportedAttachment) -> [ImportedAttachment]? = { _ in nil }

    mutating func take(
      _ attachment: ImportedAttachment,
      place: (ImportedAttachment) -> Result<String, SnapshotPlacement.Unplaced>
    ) throws(ImportError) {
      let named = "\(attachment.name) (\(attachment.provenance.description))"
      let declared = attachment.kind
      // Names and types lie (Xcode keeps HEIC screenshots as public.png): the bytes decide.
      let kind = declared == .png || declared == .zip ? try sniff(attachment) : declared
      switch kind {
      case .heic, .jpeg:
        let named = declared == kind ? named : "\(named), named as \(declared)"
        notLanded.append("\(named): skipped, \(kind) is not a reference")
      case .other(let type):
        others[type, default: 0] += 1
      case .zip:
        if try isOurArchive(attachment) {
          archives.append(attachment)
        } else {
          notLanded.append("\(named): a zip without this package's manifest")
        }
      case .png:
        switch place(attachment) {
        case .success(let path):
          add(.init(path: path, attachment: attachment, comparedWith: comparedWith(attachment)))
        case .failure(let unplaced):
          if let kind = unplaced.countedAs {
            counted[kind, default: 0] += 1
          } else {
            notLanded.append("\(named): \(unplaced.reason)")
          }
        }
      }
    }

    private func sniff(_ attachment: ImportedAttachment) throws(ImportError) -> AttachmentKind {
      let prefix = try reader.payloadPrefix(attachment, count: 12)
      return AttachmentKind(sniffing: prefix)
        ?? .other("unknown content, named as \(attachment.kind)")
    }

    private mutating func add(_ image: ImportedSource.PlacedImage) {
      let context = self.context(image.attachment.provenance)
      // A path that repeats in a context (one test attaching a name twice, a name Swift
      // Testing made unique) goes to a source named by what tells the render apart: its
      // activity and the name it was stored under, so a conflict says which render is which.
      let attachment = image.attachment
      func labelled(_ mark: String) -> String { context.isEmpty ? mark : "\(context), \(mark)" }
      var labels = [context]
      if let distinction = attachment.distinction { labels.append(labelled(distinction)) }
      for label in labels where add(image, to: label) { return }
      // Renders nothing tells apart are numbered.
      var number = 2
      while !add(image, to: labelled("#\(number)")) { number += 1 }
    }

    /// Adds an image to the group of a label, unless the group holds its path already.
    private mutating func add(_ image: ImportedSource.PlacedImage, to label: String) -> Bool {
      guard let index = groups.firstIndex(where: { $0.context == label }) else {
        groups.append((label, [image.path: image]))
        return true
      }
      guard groups[index].images[image.path] == nil else { return false }
      groups[index].images[image.path] = image
      return true
    }

    private func isOurArchive(_ attachment: ImportedAttachment) throws(ImportError) -> Bool {
      let bytes = try reader.payload(attachment)
      let first = try? ZipReader(limits: .default).firstEntry(
        in: .memory(bytes, name: attachment.name))
      return first?.path == ArchiveManifest.entryName
    }

    func sources() -> [ImportedSource] {
      var notes = notLanded
      if !others.isEmpty {
        let kinds = others.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        notes.append("not images, not read: " + kinds.joined(separator: ", "))
      }
      if !counted.isEmpty {
        let kinds = counted.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        notes.append("images that are not references, not landed: " + kinds.joined(separator: ", "))
      }
      var sources = archives.map {
        ImportedSource(url: reader.container, content: .archive($0), label: "", notLanded: [])
      }
      for group in groups {
        let images = group.images.values.sorted { $0.path < $1.path }
        sources.append(
          ImportedSource(
            url: reader.container, content: .images(images), label: group.context,
            notLanded: []))
      }
      guard !notes.isEmpty else { return sources }
      // The notes travel with the first image source, or an empty one of their own.
      if let index = sources.firstIndex(where: {
        if case .images = $0.content { true } else { false }
      }) {
        let first = sources[index]
        sources[index] = ImportedSource(
          url: reader.container, content: first.content, label: first.label, notLanded: notes)
      } else {
        sources.append(
          ImportedSource(url: reader.container, content: .images([]), label: "", notLanded: notes))
      }
      return sources
    }
  }
}
