import Foundation
import ReferenceArchive
import ReferenceContracts

/// What `--require-complete` can refuse from the archives' manifests alone, before any image is
/// read or staged: a run whose manifest says it was cut short or could not write every image.
/// Only the manifest's completion is decoded, from the archive's first entry, where the
/// coordinator writes it; the full check (entries the manifest lists but the archive lacks, a
/// source with no manifest) still runs with the merge.
enum DeclaredCompletion {
  /// The fields of a manifest this check reads.
  private struct Completion: Decodable, ManifestVersioned {
    let formatVersion: Int
    let completion: ArchiveManifest.Completion
  }

  /// How the coordinator's manifest of a finished run opens (keys sorted, pretty-printed): such
  /// a manifest needs no decoding here. Any other opening is decoded; either way the merge
  /// checks the whole manifest again, so this only spares a fleet's merge a second parse.
  private static let finishedOpening = Array("{\n  \"completion\" : \"finished\"".utf8)

  /// The zip sources whose manifests say they did not finish, as inventories the summary lists
  /// (manifest, no images), in the sources' order. Sources it cannot read this way are left to
  /// the merge, which refuses them by name.
  static func unfinished(_ sources: [MergeSource]) -> [SourceInventory] {
    sources.compactMap { source in
      guard case .zip(let url) = source.location,
        let first = try? ZipReader().firstEntry(in: .file(url)),
        first.path == ArchiveManifest.entryName
      else { return nil }
      guard !first.bytes.starts(with: finishedOpening) else { return nil }
      let data = Data(first.bytes)
      guard
        let declared = try? ArchiveManifest.decode(Completion.self, from: data, source: url.path),
        declared.completion != .finished,
        var manifest = try? ArchiveManifest.decode(data, source: url.path)
      else { return nil }
      let imageCount = manifest.images.count + (manifest.unchangedImages?.count ?? 0)
      manifest.images = []
      manifest.unchangedImages = nil
      return SourceInventory(
        source: source, manifest: manifest, images: [], imageCount: imageCount,
        generatedAt: manifest.endedAt ?? manifest.startedAt, missingEntries: [])
    }
  }
}
