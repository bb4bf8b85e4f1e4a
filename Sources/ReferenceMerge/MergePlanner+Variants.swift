import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// Variant files (`ReferenceVariants`): a variant's render lands only where it differs from
/// what the rest of its chain gives, decided with every render of the merge in hand, so a base
/// that changes in the same merge is compared as it will be, not as it was.
extension MergePlanner {
  /// What a variant's render is compared with: the first fallback of its chain that this merge
  /// renders or the destination holds.
  struct Fallback {
    /// Where its pixels come from.
    enum Origin {
      /// A render of this merge: what the file will hold.
      case render(MergePlan.Candidate)
      /// The destination's file at a path.
      case file(String)
    }
    /// Its pixel digest.
    var pixels: SHA256Digest
    /// Where its pixels come from.
    var origin: Origin
  }

  /// A variant render whose pixels differ from its fallback's: equal under its test's own
  /// comparison (tolerance, perceptual) it still needs no file.
  private struct NearCheck {
    var index: Int
    var render: MergePlan.Candidate
    var fallback: Fallback.Origin

    /// The render in its source, where its manifest record is.
    var request: SourceFetcher.Request {
      .init(sourceIndex: render.sourceIndex, path: render.image.path)
    }

    /// The source entries to decode: the render's and a rendered fallback's, each only when
    /// its run archived it (an image recorded unchanged has no entry; its pixels are the
    /// destination's file).
    var archivedRequests: [SourceFetcher.Request] {
      var requests = render.image.isArchived ? [request] : []
      if case .render(let candidate) = fallback {
        requests.append(.init(sourceIndex: candidate.sourceIndex, path: candidate.image.path))
      }
      return requests
    }
  }

  /// Decides the items of variant files: a render that its test's own comparison finds equal to
  /// its chain's fallback needs no file (the item leaves the plan), and an existing file it
  /// would keep becomes `.redundant`.
  /// - Parameter items: Every path's item, sorted by path.
  /// - Returns: The paths of the renders that needed no file, sorted.
  func decideVariants(
    _ items: inout MergePlan.ItemList, declaration: ReferenceVariants,
    inventories: [SourceInventory], destination: Destination
  ) -> [String] {
    var matching = Set<Int>()
    var near: [NearCheck] = []
    for (index, item) in items.enumerated() {
      guard let chosen = item.chosen, let after = item.after,
        item.outcome.writesFile || item.outcome == .unchanged,
        let (basePath, variant) = VariantPath.split(item.path, declared: declaration),
        let fallback = fallback(
          of: chosen.image, basePath: basePath, variant: variant, declaration: declaration,
          items: items, destination: destination)
      else { continue }
      if fallback.pixels == after {
        matching.insert(index)
      } else {
        near.append(.init(index: index, render: chosen, fallback: fallback.origin))
      }
    }
    matching.formUnion(
      equalUnderTheirComparison(near, inventories: inventories, destination: destination))
    guard !matching.isEmpty else { return [] }
    var notNeeded: [String] = []
    var decided = MergePlan.ItemList()
    for (index, item) in items.enumerated() {
      if !matching.contains(index) {
        decided.append(item)
      } else if item.outcome == .added {
        notNeeded.append(item.path)
      } else {
        decided.append(
          MergePlan.Item(
            path: item.path, outcome: .redundant, chosen: nil, rivals: [],
            conflictingPixels: nil, resolvedByNewest: false))
      }
    }
    items = decided
    return notNeeded
  }

  /// The fallback of a variant's render; nil when its chain holds no file and no render.
  private func fallback(
    of render: SourceInventory.Image, basePath: String, variant: String,
    declaration: ReferenceVariants, items: MergePlan.ItemList, destination: Destination
  ) -> Fallback? {
    for name in declaration.chain(of: variant).dropFirst() {
      let path = VariantPath.path(of: basePath, variant: name)
      if let item = Self.item(at: path, in: items) {
        // A redundant fallback's render equals its own fallback, so the chain goes on past it.
        if item.outcome == .redundant { continue }
        if let chosen = item.chosen, let after = item.after {
          // A render its run recorded unchanged has no entry to read: its pixels are the
          // destination's file, which the plan counts unchanged only while it holds them.
          return Fallback(
            pixels: after, origin: chosen.image.isArchived ? .render(chosen) : .file(path))
        }
      }
      guard let bytes = destination.pngDigest(path) else { continue }
      // Equal bytes hold equal pixels, and this package's encoder writes equal pixels as equal
      // bytes on every platform: most fallbacks that match need no decoding.
      if bytes == render.pngSHA256 {
        return Fallback(pixels: render.pixelSHA256, origin: .file(path))
      }
      guard case .image(_, _, let pixels) = destination.pixelIdentity(path) else { return nil }
      return Fallback(pixels: pixels, origin: .file(path))
    }
    return nil
  }

  /// The near checks whose render its test's own comparison and bound (recorded in the
  /// manifest, for an archived image and one recorded unchanged alike) find equal to the
  /// fallback. Exact tests without ignored regions or shift tolerance, and archives of versions
  /// that did not record comparisons, need equal pixels, which the digests already ruled out.
  private func equalUnderTheirComparison(
    _ checks: [NearCheck], inventories: [SourceInventory], destination: Destination
  ) -> Set<Int> {
    guard !checks.isEmpty else { return [] }
    let recorded = recordedComparisons(
      Dictionary(grouping: checks.map(\.request), by: \.sourceIndex).mapValues {
        Set($0.map(\.path))
      }, inventories: inventories)
    let wanted = checks.filter { recorded[$0.request].map { !$0.needsEqualPixels } ?? false }
    guard !wanted.isEmpty else { return [] }
    let images = SourceFetcher(limits: options.limits).images(
      wanted.flatMap(\.archivedRequests), inventories: inventories)
    var equal = Set<Int>()
    for check in wanted {
      guard let record = recorded[check.request], let comparison = record.comparison,
        let render = renderImage(check, images, destination),
        let reference = fallbackImage(check.fallback, images, destination),
        render.width == reference.width, render.height == reference.height
      else { continue }
      if comparison.compare(render, to: reference, bound: record.bound).passed {
        equal.insert(check.index)
      }
    }
    return equal
  }

  /// The render's decoded image: its entry's, or for a render its run recorded unchanged, the
  /// destination's file, which holds its pixels while the plan counts it unchanged (the only
  /// outcome such a render has in the plan's items).
  private func renderImage(
    _ check: NearCheck, _ images: [SourceFetcher.Request: RGBAImage], _ destination: Destination
  ) -> RGBAImage? {
    check.render.image.isArchived
      ? images[check.request] : destination.image(check.render.image.path)
  }

  /// The fallback's decoded image.
  private func fallbackImage(
    _ origin: Fallback.Origin, _ images: [SourceFetcher.Request: RGBAImage],
    _ destination: Destination
  ) -> RGBAImage? {
    switch origin {
    case .render(let candidate):
      images[.init(sourceIndex: candidate.sourceIndex, path: candidate.image.path)]
    case .file(let path):
      destination.image(path)
    }
  }

  /// The comparisons the manifests record for some images (archived or recorded unchanged),
  /// read again: the inventories keep none, and only variant renders near their fallback need
  /// them.
  private func recordedComparisons(
    _ paths: [Int: Set<String>], inventories: [SourceInventory]
  ) -> [SourceFetcher.Request: ComparisonRecord] {
    var recorded: [SourceFetcher.Request: ComparisonRecord] = [:]
    for (sourceIndex, wanted) in paths {
      let source = inventories[sourceIndex].source
      try? SourceReader(limits: options.limits).forEachEntry(
        of: source, wantsData: { $0 == ArchiveManifest.entryName }
      ) { (entry) throws(MergeError) in
        guard entry.path == ArchiveManifest.entryName else { return }
        let manifest = try MergeError.catching { () throws(ManifestError) in
          try ArchiveManifest.decode(Data(entry.bytes), source: source.description)
        }
        // An image recorded unchanged carries its test's comparison too: a variant file its
        // run left unchanged is judged against its fallback as an archived render is.
        let comparisons =
          manifest.images.map { ($0.path, $0.comparison) }
          + (manifest.unchangedImages ?? []).map { ($0.path, $0.comparison) }
        for case (let path, let comparison?) in comparisons where wanted.contains(path) {
          recorded[.init(sourceIndex: sourceIndex, path: path)] = comparison
        }
      }
    }
    return recorded
  }

  /// The sources that hold renders of a platform their run's declaration did not name: the
  /// test refused to generate there, and a failed comparison's render, kept under the base's
  /// name, must not land through `merge-refs` either.
  func undeclaredPlatforms(_ plan: MergePlan) -> [MergeProblem] {
    plan.inventories.compactMap { inventory in
      guard inventory.imageCount > 0,
        let platform = inventory.manifest?.variants?.lazy
          .compactMap(RunningVariant.undeclaredPlatform(recorded:)).first
      else { return nil }
      return .undeclaredPlatform(
        source: inventory.source.description, platform: platform,
        basePlatform: plan.variants?.basePlatform)
    }
  }
}
