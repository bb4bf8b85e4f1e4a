import Foundation
import ReferenceImports

/// A worker's swift-snapshot-testing `__Snapshots__` tree (`SnapshotTree`): one source, its
/// PNGs at their paths.
public struct SnapshotTreeSource: ImportedSourceKind {
  public let imported: ImportedSource

  public static let proves =
    "a __Snapshots__ tree holds no manifest, so it proves nothing about orphans"

  /// Opens a folder that holds `__Snapshots__` folders and no archive manifest.
  public static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]? {
    guard let folder = folder(argument), SnapshotTree.recognizes(folder) else { return nil }
    return try sources(of: argument) { limits, _ throws(ImportError) in
      [Self(imported: try SnapshotTree(url: folder, limits: limits).source())]
    }
  }

  public func reader(limits: ImportLimits) -> AttachmentReader {
    .snapshotTree(imported.url, limits: limits)
  }

  /// Trees from several workers that disagree about swift-snapshot-testing's counters for a
  /// test (`SnapshotTree.counterDisagreements`): the first tree says so.
  public static func crossChecked(_ sources: [MergeSource]) -> [MergeSource] {
    let trees = sources.compactMap { source -> (url: URL, paths: [String])? in
      guard let tree = source.kind as? Self, case .images(let images) = tree.content else {
        return nil
      }
      return (tree.imported.url, images.map(\.path))
    }
    let notes = SnapshotTree.counterDisagreements(trees)
    guard !notes.isEmpty, let first = sources.firstIndex(where: { $0.kind is Self }),
      let tree = sources[first].kind as? Self
    else { return sources }
    var checked = sources
    checked[first] = MergeSource(Self(imported: tree.imported.noting(notes)))
    return checked
  }
}
