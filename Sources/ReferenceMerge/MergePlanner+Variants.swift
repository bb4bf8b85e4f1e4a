import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Variant files (`ReferenceVariants`): a variant's render lands only where it differs from
/// what the rest of its chain gives, decided with every render of the merge in hand, so a base
/// that changes in the same merge is compared as it will be, not as it was.
extension MergePlanner {
  /// Decides the items of variant files: a render equal to its chain's fallback needs no file
  /// (the item leaves the plan), and an existing file it would keep becomes `.redundant`.
  /// - Parameter items: Every path's item, sorted by path.
  /// - Returns: The paths of the renders that needed no file, sorted.
  func decideVariants(
    _ items: inout [MergePlan.Item], declaration: ReferenceVariants, destination: Destination
  ) -> [String] {
    var notNeeded = Set<Int>()
    for index in items.indices {
      let item = items[index]
      guard let after = item.after,
        item.outcome == .added || item.outcome == .updated || item.outcome == .unchanged,
        let (basePath, variant) = VariantPath.split(item.path, declared: declaration),
        fallbackPixels(
          basePath: basePath, variant: variant, declaration: declaration, items: items,
          destination: destination) == after
      else { continue }
      if item.outcome == .added {
        notNeeded.insert(index)
      } else {
        items[index] = MergePlan.Item(
          path: item.path, outcome: .redundant, chosen: nil, rivals: [], conflictingPixels: nil,
          resolvedByNewest: false)
      }
    }
    guard !notNeeded.isEmpty else { return [] }
    let paths = notNeeded.sorted().map { items[$0].path }
    items = items.indices.filter { !notNeeded.contains($0) }.map { items[$0] }
    return paths
  }

  /// The pixels a variant's test would compare with if its own file did not exist: the first
  /// fallback of its chain that this merge renders or the destination holds; nil when none.
  private func fallbackPixels(
    basePath: String, variant: String, declaration: ReferenceVariants, items: [MergePlan.Item],
    destination: Destination
  ) -> SHA256Digest? {
    for fallback in declaration.chain(of: variant).dropFirst() {
      let path = VariantPath.path(of: basePath, variant: fallback)
      if let item = Self.item(at: path, in: items) {
        // A render of the fallback in this merge is what the file will hold; a redundant
        // fallback's render equals its own fallback, so the chain goes on past it.
        if item.outcome == .redundant { continue }
        if let after = item.after { return after }
      }
      guard destination.pngDigest(path) != nil else { continue }
      guard case .image(_, _, let pixelSHA256) = destination.pixelIdentity(path) else {
        return nil
      }
      return SHA256Digest(hex: pixelSHA256)
    }
    return nil
  }

  /// The item at a path, by binary search of the sorted items.
  private static func item(at path: String, in items: [MergePlan.Item]) -> MergePlan.Item? {
    var low = 0
    var high = items.count
    while low < high {
      let middle = (low + high) / 2
      if items[middle].path < path { low = middle + 1 } else { high = middle }
    }
    return low < items.count && items[low].path == path ? items[low] : nil
  }
}
