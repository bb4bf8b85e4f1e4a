import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Decides, for every destination path, what a merge does. It reads each source once, keeps
/// only hashes, and looks at a destination file's pixels only when its bytes differ.
public struct MergePlanner: Sendable {
  /// The options.
  public var options: MergeOptions

  /// Creates a planner.
  public init(options: MergeOptions) {
    self.options = options
  }

  /// Builds the plan.
  /// - Parameters:
  ///   - sources: The sources, in command-line order.
  ///   - destination: The package root the archive paths are relative to.
  ///   - progress: Called with (sources read, total) as reading advances.
  /// - Returns: The plan; bad sources are listed in it (and, without `keepGoing`, the caller
  ///   must not apply it).
  public func plan(
    sources: [MergeSource], destination: URL, progress: (Int, Int) -> Void = { _, _ in }
  ) -> MergePlan {
    plan(sources: sources, destination: destination, staging: nil, progress: progress)
  }

  /// Builds the plan, keeping entries that will probably be written in `staging`.
  func plan(
    sources: [MergeSource], destination: URL, staging: MergeStaging?,
    progress: (Int, Int) -> Void
  ) -> MergePlan {
    let index = DestinationIndex(root: destination)
    var scanner = InventoryScanner(limits: options.limits)
    scanner.destination = index
    scanner.staging = staging
    var inventories: [SourceInventory] = []
    var bad: [MergePlan.BadSource] = []
    for (position, source) in sources.enumerated() {
      // Staged files are keyed by the inventory's index, which bad sources do not take.
      scanner.sourceIndex = inventories.count
      do {
        inventories.append(try scanner.scan(source))
      } catch {
        bad.append(.init(source: source, error: error))
      }
      progress(position + 1, sources.count)
    }
    var items = decide(inventories, destination: destination, index: index)
    var destinationProblems: [ArchiveError] = []
    let applier = MergeApplier(options: options)
    for item in items {
      do {
        _ = try applier.safeURL(item.path, in: destination)
      } catch {
        destinationProblems.append(error)
      }
    }
    items = countConflictingPixels(items, inventories: inventories)
    let orphanSearch = !inventories.isEmpty && inventories.allSatisfy(\.isComplete) && bad.isEmpty
    if orphanSearch {
      items += orphans(inventories, destination: destination)
    }
    items.sort { $0.path < $1.path }
    return MergePlan(
      destination: destination, inventories: inventories, badSources: bad,
      destinationProblems: destinationProblems, items: items, orphanSearchDone: orphanSearch)
  }

  // MARK: Decisions

  private func decide(
    _ inventories: [SourceInventory], destination: URL, index: DestinationIndex
  ) -> [MergePlan.Item] {
    var candidates: [String: [MergePlan.Candidate]] = [:]
    for (index, inventory) in inventories.enumerated() {
      for image in inventory.images.values {
        candidates[image.path, default: []].append(.init(sourceIndex: index, image: image))
      }
    }
    return candidates.map { path, all in
      // Newest first; among equals, the later source on the command line wins.
      let ordered = all.sorted {
        let (a, b) = (
          inventories[$0.sourceIndex].generatedAt, inventories[$1.sourceIndex].generatedAt
        )
        return a != b ? a > b : $0.sourceIndex > $1.sourceIndex
      }
      var rivals: [MergePlan.Candidate] = []
      for candidate in ordered
      where !rivals.contains(where: { $0.image.pixelSHA256 == candidate.image.pixelSHA256 }) {
        rivals.append(candidate)
      }
      if rivals.count > 1 && options.onConflict == .fail {
        return MergePlan.Item(
          path: path, outcome: .conflict, chosen: nil, rivals: rivals,
          conflictingPixels: nil, resolvedByNewest: false)
      }
      let chosen = ordered[0]
      return MergePlan.Item(
        path: path, outcome: outcome(of: chosen.image, at: destination, index: index),
        chosen: chosen,
        rivals: rivals.count > 1 ? rivals : [], conflictingPixels: nil,
        resolvedByNewest: rivals.count > 1)
    }
  }

  /// Added, updated or unchanged, by content: equal bytes, else equal decoded pixels.
  private func outcome(
    of image: SourceInventory.Image, at destination: URL, index: DestinationIndex
  ) -> MergePlan.Outcome {
    guard let digest = index.pngSHA256(image.path) else { return .added }
    if digest == image.pngSHA256 { return .unchanged }
    guard let bytes = try? FileSystem.read(destination.appendingPathComponent(image.path)) else {
      return .updated
    }
    guard let pixels = try? PNGDecoder().decode(bytes) else { return .updated }
    let samePixels =
      pixels.width == image.width && pixels.height == image.height
      && SHA256.hex(pixels.pixels) == image.pixelSHA256
    return samePixels ? .unchanged : .updated
  }

  /// Fills in how many pixels the first two rivals of each conflict differ by. Conflicts are
  /// rare, so decoding their images costs little.
  private func countConflictingPixels(
    _ items: [MergePlan.Item], inventories: [SourceInventory]
  ) -> [MergePlan.Item] {
    let requests = items.filter { $0.rivals.count > 1 }.flatMap { item in
      item.rivals.prefix(2).map {
        SourceFetcher.Request(sourceIndex: $0.sourceIndex, path: item.path)
      }
    }
    guard !requests.isEmpty else { return items }
    let images = SourceFetcher(limits: options.limits).images(requests, inventories: inventories)
    return items.map { item in
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
    }
  }

  // MARK: Orphans

  /// PNGs in the reference folders the runs used that no run produced or verified.
  private func orphans(_ inventories: [SourceInventory], destination: URL) -> [MergePlan.Item] {
    var covered = Set<String>()
    for inventory in inventories {
      covered.formUnion(inventory.images.keys)
      covered.formUnion(inventory.manifest?.verifiedReferences ?? [])
    }
    let folders = Set(covered.map { ($0 as NSString).deletingLastPathComponent })
    var orphans: [MergePlan.Item] = []
    for folder in folders.sorted() {
      let url = destination.appendingPathComponent(folder)
      let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
      for name in names where name.lowercased().hasSuffix(".png") {
        let path = folder.isEmpty ? name : "\(folder)/\(name)"
        guard !covered.contains(path),
          (try? SourceReader.kind(of: url.appendingPathComponent(name))) == .regularFile
        else { continue }
        orphans.append(
          .init(
            path: path, outcome: .orphan, chosen: nil, rivals: [], conflictingPixels: nil,
            resolvedByNewest: false))
      }
    }
    return orphans
  }
}
