import Foundation
import ReferenceArchive
import ReferenceContracts

/// Turns a result bundle or an attachment export into merge sources.
public enum ImportedSources {
  /// The container a path is, when it is one this module reads.
  public static func container(at url: URL) -> ImportedSource.Container? {
    guard FileStatus.of(url.path) == .directory else { return nil }
    if url.pathExtension == "xcresult"
      || FileStatus.of(url.appendingPathComponent("Info.plist").path)
        == .regularFile && FileStatus.of(url.appendingPathComponent("Data").path) == .directory
    {
      return .resultBundle(url)
    }
    if AttachmentExport.recognizes(url) { return .attachmentExport(url) }
    if case .attachments(let streams) = SwiftTestingAttachments.recognize(url) {
      return .swiftTestingAttachments(url, streams: streams)
    }
    return SnapshotTree.recognizes(url) ? .snapshotTree(url) : nil
  }

  /// Why a folder is refused before it is read, or nil: Swift Testing's failure images
  /// without the event stream that names their tests.
  public static func refusal(of url: URL) -> ImportError? {
    guard case .missingStream(let example) = SwiftTestingAttachments.recognize(url) else {
      return nil
    }
    return ImportError(
      container: url.path, object: example,
      reason: SwiftTestingAttachments.missingStreamReason(folder: url))
  }

  /// The sources of a container: each attached archive of this package, then the placed PNG
  /// attachments by render context. When nothing lands, one empty source still lists what was
  /// not landed and why.
  /// - Parameter destination: The package being merged into, whose `__Snapshots__` folders
  ///   place swift-snapshot-testing's recorded snapshots.
  public static func sources(
    of container: ImportedSource.Container, destination: URL, limits: ImportLimits
  ) throws(ImportError) -> [ImportedSource] {
    if case .snapshotTree(let url) = container {
      return [try treeSource(SnapshotTree(url: url, limits: limits))]
    }
    var attachments: [ImportedAttachment] = []
    var sorting = Sorting(container: container, limits: limits)
    switch container {
    case .resultBundle(let url):
      attachments = try ResultBundle(url: url, limits: limits).attachments()
    case .attachmentExport(let url):
      attachments = try AttachmentExport(url: url, limits: limits).attachments()
    case .swiftTestingAttachments(let url, let streams):
      let listed = try SwiftTestingAttachments(url: url, streams: streams, limits: limits)
        .attachments()
      attachments = listed.attachments
      sorting.notLanded += listed.unnamed.map {
        "\(EntryPathText.escaped($0)): no valueAttached record of the event stream names it, "
          + "so its test is unknown"
      }
    case .snapshotTree: break
    }
    if case .swiftTestingAttachments = container {
      // A render lands only over the reference it was compared with, as an archive's does:
      // the folder holds that reference beside it, or none when there was none.
      let references = FailureImagePlacement.references(among: attachments)
      sorting.comparedWith = { attachment in
        FailureImagePlacement.comparisonKey(attachment).map { references[$0] ?? [] }
      }
      for attachment in attachments {
        try sorting.take(attachment, place: FailureImagePlacement.place)
      }
      return sorting.sources()
    }
    var placement: SnapshotPlacement?
    for attachment in attachments {
      try sorting.take(attachment) {
        placement = placement ?? SnapshotPlacement(destination: destination)
        return placement!.place($0)
      }
    }
    return sorting.sources()
  }

  /// A tree is one source: its PNGs at their paths; its other files are listed, not read.
  private static func treeSource(_ tree: SnapshotTree) throws(ImportError) -> ImportedSource {
    let (files, outside) = try tree.files()
    let images = files.filter(\.isPNG).map { file in
      ImportedSource.PlacedImage(
        path: file.path,
        attachment: ImportedAttachment(
          name: (file.path as NSString).lastPathComponent, typeIdentifier: "public.png",
          payload: .treeFile(path: file.path), provenance: AttachmentProvenance(test: "")))
    }
    var notes: [String] = []
    let others = files.count - images.count
    if others > 0 { notes.append("\(others) snapshots that are not PNG, not read") }
    if outside > 0 { notes.append("\(outside) files outside __Snapshots__ folders, not read") }
    return ImportedSource(
      container: .snapshotTree(tree.url), content: .images(images), label: "", notLanded: notes)
  }

  /// Says where trees from several workers disagree about swift-snapshot-testing's counters
  /// for one test (`test.1.png`, `test.2.png` are numbered in call order, so a worker that
  /// made one call more or less numbers every later render differently): the first tree
  /// source carries the note.
  public static func crossChecked(_ sources: [ImportedSource]) -> [ImportedSource] {
    var counters: [(tree: URL, counters: [String: Set<Int>])] = []
    for source in sources {
      guard case .snapshotTree(let url) = source.container,
        case .images(let images) = source.content
      else { continue }
      counters.append((url, SnapshotTree.counters(images.map(\.path))))
    }
    guard counters.count > 1 else { return sources }
    var notes: [String] = []
    let tests = Set(counters.flatMap(\.counters.keys)).sorted()
    for test in tests {
      let seen = counters.compactMap { tree in tree.counters[test].map { (tree.tree, $0) } }
      guard seen.count > 1, Set(seen.map(\.1)).count > 1 else { continue }
      let each = seen.map {
        "\($0.0.path) has \($0.1.sorted().map(String.init).joined(separator: ", "))"
      }
      notes.append(
        "the workers' counters disagree for \(test): \(each.joined(separator: "; ")) "
          + "(swift-snapshot-testing numbers unnamed snapshots in call order; name them)")
    }
    guard !notes.isEmpty,
      let first = sources.firstIndex(where: {
        if case .snapshotTree = $0.container { true } else { false }
      })
    else { return sources }
    var checked = sources
    checked[first].notLanded += notes
    return checked
  }

  /// Sorts attachments into archives, placed images by context, and what does not land.
  private struct Sorting {
    let container: ImportedSource.Container
    let limits: ImportLimits
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
      let prefix = try container.payloadPrefix(attachment, count: 12, limits: limits)
      return AttachmentKind(sniffing: prefix)
        ?? .other("unknown content, named as \(attachment.kind)")
    }

    private mutating func add(_ image: ImportedSource.PlacedImage) {
      // Swift Testing's attachments are the failures of a few tests: a source per test names
      // the test in a conflict. A bundle's thousands of snapshots group by context alone.
      let provenance = image.attachment.provenance
      let context: String
      if case .swiftTestingAttachments = container {
        context = provenance.description
      } else {
        context = provenance.context
      }
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
      let bytes = try container.payload(attachment, limits: limits)
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
        ImportedSource(container: container, content: .archive($0), label: "", notLanded: [])
      }
      for group in groups {
        let images = group.images.values.sorted { $0.path < $1.path }
        sources.append(
          ImportedSource(
            container: container, content: .images(images), label: group.context,
            notLanded: []))
      }
      guard !notes.isEmpty else { return sources }
      // The notes travel with the first image source, or an empty one of their own.
      if let index = sources.firstIndex(where: {
        if case .images = $0.content { true } else { false }
      }) {
        let first = sources[index]
        sources[index] = ImportedSource(
          container: container, content: first.content, label: first.label, notLanded: notes)
      } else {
        sources.append(
          ImportedSource(container: container, content: .images([]), label: "", notLanded: notes))
      }
      return sources
    }
  }
}
