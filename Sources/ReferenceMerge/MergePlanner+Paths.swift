import Foundation
import ReferenceContracts
import ReferenceImageCore
import ReferenceStore

/// The decision for each path, from its candidates and the destination's file: the part of the
/// plan that is about pixels.
extension MergePlanner {
  /// Every path's item, and apart the paths refused by what the runs recorded about them.
  struct PathDecisions {
    /// The items, sorted by path.
    var items: MergePlan.ItemList
    /// See `MergePlan.unarchivedChanged`.
    var unarchivedChanged: [String]
    /// See `MergePlan.changedSinceComparison`.
    var changedSinceComparison: [MergePlan.ReferenceChange]
  }

  /// Every path's item, and apart the paths whose chosen image was recorded unchanged but
  /// whose destination no longer holds its pixels (see `MergePlan.unarchivedChanged`), and
  /// those whose render was kept by a failed comparison with a reference the destination no
  /// longer holds (`MergePlan.changedSinceComparison`).
  /// The sources' image lists are moved into the items' shared table (`MergePlan.ReadImages`)
  /// and left empty.
  func decidePaths(_ inventories: inout [SourceInventory], destination: Destination)
    -> PathDecisions
  {
    let read = MergePlan.ReadImages(movingFrom: &inventories)
    var items: MergePlan.ItemList = []
    var unarchivedChanged: [String] = []
    var changedSinceComparison: [MergePlan.ReferenceChange] = []
    read.forEachPath { places in
      let item = decide(
        places[...], read: read, inventories: inventories, destination: destination)
      if let chosen = item.chosen, !chosen.image.isArchived, item.outcome != .unchanged {
        unarchivedChanged.append(item.path)
      } else if let change = referenceChange(
        item, inventories: inventories, destination: destination)
      {
        changedSinceComparison.append(change)
      } else {
        items.append(item)
      }
    }
    items.fit()
    return PathDecisions(
      items: items, unarchivedChanged: unarchivedChanged,
      changedSinceComparison: changedSinceComparison)
  }

  /// For a render kept by a failed comparison that would be written: the change, when the
  /// destination no longer holds the reference it was compared with (or now holds a file where
  /// there was none). Landing it would replace pixels nobody compared it with.
  /// A source without a manifest says what its render was compared with in
  /// `SourceInventory.comparedReferences` (several references when repeated runs each
  /// compared it: any of them will do).
  private func referenceChange(
    _ item: MergePlan.Item, inventories: [SourceInventory], destination: Destination
  ) -> MergePlan.ReferenceChange? {
    guard item.outcome.writesFile, let chosen = item.chosen else { return nil }
    let compared: [SHA256Digest?]
    if let failure = chosen.image.failedComparison {
      compared = [failure.referencePixels]
    } else if let digests = inventories[chosen.sourceIndex].comparedReferences[item.path] {
      compared = digests.isEmpty ? [nil] : digests
    } else {
      return nil
    }
    let now: SHA256Digest?
    switch destination.pixelIdentity(item.path) {
    case .image(_, _, let pixelSHA256): now = pixelSHA256
    case nil: now = nil
    case .gitLFSPointer, .undecodable: return nil  // refused or reported by their own rules
    }
    guard !compared.contains(now) else { return nil }
    return .init(path: item.path, compared: compared[0], now: now)
  }

  /// The decision for one path, from every source's image for it (their places in `read`).
  private func decide(
    _ all: ArraySlice<MergePlan.Place>, read: MergePlan.ReadImages,
    inventories: [SourceInventory], destination: Destination
  ) -> MergePlan.Item {
    let path = read[all[all.startIndex]].path
    // Newest first; among equals, the later source on the command line wins.
    let ordered = all.sorted {
      let (a, b) = (Int($0.source), Int($1.source))
      let (aAt, bAt) = (inventories[a].generatedAt, inventories[b].generatedAt)
      return aAt != bAt ? aAt > bAt : a > b
    }
    var rivals: [MergePlan.Place] = []
    for place in ordered
    where !rivals.contains(where: { read[$0].pixelSHA256 == read[place].pixelSHA256 }) {
      rivals.append(place)
    }
    let candidates = rivals.count > 1 ? rivals.map(read.candidate(at:)) : []
    // Replicas disagree: whatever the conflict policy, no render of a nondeterministic test is
    // a reference.
    if rivals.count > 1 && areReplicas(candidates, inventories: inventories) {
      return MergePlan.Item(
        path: path, outcome: .unstable, chosen: nil, rivals: candidates, conflictingPixels: nil,
        resolvedByNewest: false)
    }
    if rivals.count > 1 && options.onConflict == .fail {
      return MergePlan.Item(
        path: path, outcome: .conflict, chosen: nil, rivals: candidates,
        conflictingPixels: nil, resolvedByNewest: false)
    }
    let chosen = archivedIfAny(like: ordered[0], among: ordered, read: read)
    let (outcome, before) = outcome(of: read[chosen], destination: destination)
    return MergePlan.Item(
      outcome: outcome, read: read, place: chosen, rivals: candidates,
      resolvedByNewest: rivals.count > 1, replaced: outcome == .updated ? before : nil)
  }

  /// `chosen`, or a place with the same pixels that holds them in its source: a run that
  /// recorded the image unchanged and one that archived it agree, and only the archived one
  /// can be written if the destination has changed since.
  private func archivedIfAny(
    like chosen: MergePlan.Place, among all: [MergePlan.Place], read: MergePlan.ReadImages
  ) -> MergePlan.Place {
    guard !read[chosen].isArchived else { return chosen }
    return all.first { read[$0].isArchived && read[$0].pixelSHA256 == read[chosen].pixelSHA256 }
      ?? chosen
  }

  /// Whether disagreeing renders are replicas: one test's renders from runs that repeat the
  /// tests on purpose (`reference-shards --replicas`, the plugin's `--repeat`). Other sources
  /// that disagree stay a conflict, which `--on-conflict newest` may resolve.
  private func areReplicas(_ rivals: [MergePlan.Candidate], inventories: [SourceInventory])
    -> Bool
  {
    guard let test = rivals[0].image.test else { return false }
    return rivals.allSatisfy {
      $0.image.test == test && (inventories[$0.sourceIndex].manifest?.replicas ?? 1) > 1
    }
  }

  /// Added, updated or unchanged, by content: equal bytes, else equal decoded pixels; with the
  /// destination's pixel digest it was decided on (`MergePlan.Item.before`). A Git LFS pointer
  /// at the path is unchanged when it points at exactly the image's bytes, and otherwise updated
  /// (`gitLFSPointers` lists it, and the plan refuses to write it).
  private func outcome(of image: SourceInventory.Image, destination: Destination)
    -> (MergePlan.Outcome, before: SHA256Digest?)
  {
    if image.destinationHeldIt || destination.rememberedDigest(image.path) == image.pngSHA256 {
      return (.unchanged, image.pixelSHA256)
    }
    // Read once, for its digest and, when that differs, its pixels: a file asked here mostly
    // differs (the sources' reading answered for the others), and hashing first read every
    // changed file twice.
    guard let bytes = destination.read(image.path)?.bytes else {
      guard let pointer = destination.pointer(image.path) else { return (.added, nil) }
      return outcome(of: image, pointer: pointer)
    }
    if SHA256Digest(of: bytes) == image.pngSHA256 { return (.unchanged, image.pixelSHA256) }
    switch Destination.pixelIdentity(of: bytes) {
    case .image(let width, let height, let before):
      let samePixels = width == image.width && height == image.height && before == image.pixelSHA256
      return (samePixels ? .unchanged : .updated, before)
    case .gitLFSPointer(let pointer):
      let same = pointer.objectID == "sha256:\(image.pngSHA256.hex)"
      return same ? (.unchanged, image.pixelSHA256) : (.updated, nil)
    case .undecodable:
      return (.updated, nil)
    }
  }

  /// The decision for an image whose reference is a pointer: its object is the same PNG, or
  /// its pixel digests say whether the pixels are.
  private func outcome(of image: SourceInventory.Image, pointer: ReferencePointer)
    -> (MergePlan.Outcome, before: SHA256Digest?)
  {
    if pointer.object.digest == image.pngSHA256 {
      return (.unchanged, image.pixelSHA256)
    }
    let pixels = pointer.pixels
    let before = pixels.pixelSHA256
    let samePixels =
      pixels.width == image.width && pixels.height == image.height && before == image.pixelSHA256
    return (samePixels ? .unchanged : .updated, before)
  }

  /// Fills in how many pixels the first two rivals of each conflict differ by. Conflicts are
  /// rare, so decoding their images costs little.
  func countConflictingPixels(
    _ items: MergePlan.ItemList, inventories: [SourceInventory]
  ) -> MergePlan.ItemList {
    let requests = items.filter { $0.rivals.count > 1 }.flatMap { item in
      item.rivals.prefix(2).map {
        SourceFetcher.Request(sourceIndex: $0.sourceIndex, path: item.path)
      }
    }
    guard !requests.isEmpty else { return items }
    let images = SourceFetcher(limits: options.limits).images(requests, inventories: inventories)
    return MergePlan.ItemList(
      items.lazy.map { item in
        guard item.rivals.count > 1 else { return item }
        var item = item
        let pair = item.rivals.prefix(2).map {
          images[SourceFetcher.Request(sourceIndex: $0.sourceIndex, path: item.path)]
        }
        if let first = pair[0], let second = pair[1], first.width == second.width,
          first.height == second.height
        {
          let result = ImageComparison.exact.compare(first, to: second)
          item.conflictingPixels = result.differences?.differingPixelCount ?? 0
        }
        return item
      })
  }
}
