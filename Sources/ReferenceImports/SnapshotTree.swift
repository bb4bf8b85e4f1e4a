import Foundation
import ReferenceContracts

/// A folder of swift-snapshot-testing references as one worker recorded them (a CI artifact of
/// its `Tests/` or of the whole package): every file below a `__Snapshots__` folder, at its
/// path relative to the folder, which is the package-relative path it lands on.
public struct SnapshotTree: Sendable {
  /// The folder.
  public let url: URL
  let limits: ImportLimits

  /// A file of the tree, by its path relative to the tree.
  struct File {
    var path: String
    var isPNG: Bool
  }

  public init(url: URL, limits: ImportLimits = .default) {
    self.url = url
    self.limits = limits
  }

  /// Whether a folder is a tree: it holds `__Snapshots__` folders and no archive manifest of
  /// this package (an unpacked archive stays an archive).
  public static func recognizes(_ url: URL) -> Bool {
    let manifest = url.appendingPathComponent(ArchiveManifest.entryName).path
    guard FileStatus.of(manifest) == .missing,
      let walk = FileManager.default.enumerator(atPath: url.path)
    else { return false }
    while let path = walk.nextObject() as? String {
      let name = (path as NSString).lastPathComponent
      guard FileStatus.of("\(url.path)/\(path)") == .directory else { continue }
      if name == "__Snapshots__" { return true }
      if name.hasPrefix(".") { walk.skipDescendants() }
    }
    return false
  }

  /// The files below its `__Snapshots__` folders; hidden folders are skipped, and a link
  /// refuses the tree.
  func files() throws(ImportError) -> (files: [File], outside: Int) {
    guard let walk = FileManager.default.enumerator(atPath: url.path) else {
      throw ImportError(container: url.path, object: ".", reason: "the folder cannot be read")
    }
    var files: [File] = []
    var outside = 0
    while let path = walk.nextObject() as? String {
      let name = (path as NSString).lastPathComponent
      let type = FileStatus.of("\(url.path)/\(path)")
      if type == .directory {
        if name.hasPrefix(".") { walk.skipDescendants() }
        continue
      }
      guard type == .regularFile else {
        throw ImportError(
          container: url.path, object: path,
          reason: "not a regular file (a symbolic link is never followed): remove it")
      }
      guard PathComponents.of(path).dropLast().contains("__Snapshots__") else {
        outside += 1
        continue
      }
      files.append(File(path: path, isPNG: name.lowercased().hasSuffix(".png")))
      guard files.count <= limits.maximumAttachments else {
        throw ImportError(
          container: url.path, object: path,
          reason: "more than \(limits.maximumAttachments) files")
      }
    }
    return (files.sorted { $0.path < $1.path }, outside)
  }

  /// A file's bytes, refusing a link anywhere on its path.
  func read(_ path: String) throws(ImportError) -> [UInt8] {
    var prefix = url.path
    for component in PathComponents.of(path) {
      prefix += "/" + component
      guard component != "..", FileStatus.of(prefix) != .symbolicLink else {
        throw ImportError(
          container: url.path, object: path, reason: "a symbolic link or climbing path")
      }
    }
    do { return try FileStatus.read(prefix, limit: limits.maximumPayloadBytes) } catch {
      throw ImportError(container: url.path, object: path, reason: "cannot be read: \(error)")
    }
  }

  /// The tree as one source: its PNGs at their paths; its other files are listed, not read.
  public func source() throws(ImportError) -> ImportedSource {
    let (files, outside) = try files()
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
    return ImportedSource(url: url, content: .images(images), label: "", notLanded: notes)
  }

  /// Where trees from several workers disagree about swift-snapshot-testing's counters for
  /// one test (`test.1.png`, `test.2.png` are numbered in call order, so a worker that made
  /// one call more or less numbers every later render differently): a note per test, none
  /// when they agree.
  /// - Parameter trees: Each tree's folder and the paths of its images.
  public static func counterDisagreements(_ trees: [(url: URL, paths: [String])]) -> [String] {
    let counters = trees.map { (tree: $0.url, counters: Self.counters($0.paths)) }
    guard counters.count > 1 else { return [] }
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
    return notes
  }

  /// The counters a tree uses per test: `SnapTests/testTitle` → {1, 2} for
  /// `__Snapshots__/SnapTests/testTitle.1.png` and `.2.png`. Named snapshots are not counted.
  static func counters(_ paths: [String]) -> [String: Set<Int>] {
    var counters: [String: Set<Int>] = [:]
    for path in paths {
      let parts = PathComponents.of(path)
      guard parts.count >= 2 else { continue }
      let pieces = parts[parts.count - 1].split(separator: ".")
      guard pieces.count >= 3, let counter = Int(pieces[pieces.count - 2]) else { continue }
      let test = pieces.dropLast(2).joined(separator: ".")
      counters["\(parts[parts.count - 2])/\(test)", default: []].insert(counter)
    }
    return counters
  }
}

extension AttachmentReader {
  /// A tree's files, by their paths in it, refusing a link anywhere on the path.
  public static func snapshotTree(_ url: URL, limits: ImportLimits) -> AttachmentReader {
    AttachmentReader(container: url) { attachment throws(ImportError) in
      guard case .treeFile(let path) = attachment.payload else {
        throw AttachmentReader.foreign(attachment, in: url)
      }
      return try SnapshotTree(url: url, limits: limits).read(path)
    }
  }
}
