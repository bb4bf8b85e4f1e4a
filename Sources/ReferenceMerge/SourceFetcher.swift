import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Reads chosen images back out of their sources, decoded, for conflict counts and reports.
struct SourceFetcher {
  struct Request: Hashable {
    var sourceIndex: Int
    var path: String
  }

  let limits: ArchiveLimits

  /// Decodes the requested images; entries that cannot be read or decoded are left out.
  func images(_ requests: [Request], inventories: [SourceInventory]) -> [Request: RGBAImage] {
    var images: [Request: RGBAImage] = [:]
    forEachImage(requests, inventories: inventories) { images[$0] = $1 }
    return images
  }

  /// Hands each decoded image to `body` as it is read, so a report over thousands of images
  /// holds one at a time.
  func forEachImage(
    _ requests: [Request], inventories: [SourceInventory],
    _ body: (Request, RGBAImage) -> Void
  ) {
    for (sourceIndex, wanted) in Dictionary(grouping: requests, by: \.sourceIndex).sorted(by: {
      $0.key < $1.key
    }) {
      let paths = Set(wanted.map(\.path))
      // Only the wanted entries are read; the others are skipped by their headers.
      try? SourceReader(limits: limits).forEachEntry(
        of: inventories[sourceIndex].source, wantsData: { paths.contains($0) }
      ) { entry in
        // Into memory that hashing destination files left, when the planning did that.
        guard paths.contains(entry.path),
          let image = try? PNGDecoder.Recycler.shared.decode(entry.bytes)
        else { return }
        body(Request(sourceIndex: sourceIndex, path: entry.path), image)
      }
    }
  }
}
