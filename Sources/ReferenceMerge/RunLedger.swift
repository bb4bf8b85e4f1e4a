import Foundation
import ReferenceArchive
import ReferenceContracts

/// The runs behind a merge's sources, and the two decisions that need runs rather than
/// sources: which renders a later run superseded, and which references two tests share.
///
/// A run is one `swift test` invocation (or one `reference-shards` plan): its manifests carry
/// the same `run`. Runs of one host are ordered by their first process's start, as the
/// manifests record it; runs of different hosts are never ordered (their clocks are not one),
/// replicated runs repeat tests on purpose, and archives of older versions name no run, so
/// none of those supersedes anything or is superseded.
struct RunLedger {
  /// One source's run.
  struct Run: Equatable {
    /// The run's identity: the manifests' `run`, or the source itself for older archives.
    var key: String
    /// The host of its processes.
    var host: String
    /// The start of its first process.
    var start: Date
    /// Whether it takes part in supersession: it names its run and does not repeat tests on
    /// purpose (`replicas`).
    var isOrdered: Bool
  }

  /// Each inventory's run, by position.
  let runs: [Run]
  /// The limits for reading a source's manifest again.
  let limits: ArchiveLimits

  init(_ inventories: [SourceInventory], limits: ArchiveLimits) {
    self.limits = limits
    var runs = inventories.enumerated().map { index, inventory in
      Run(
        key: inventory.manifest?.run ?? "source \(index)",
        host: inventory.manifest?.worker.host ?? "",
        start: inventory.manifest?.startedAt ?? inventory.generatedAt,
        isOrdered: inventory.manifest?.run != nil && (inventory.manifest?.replicas ?? 1) <= 1)
    }
    var firstStart: [String: Date] = [:]
    for run in runs { firstStart[run.key] = min(firstStart[run.key] ?? run.start, run.start) }
    for index in runs.indices { runs[index].start = firstStart[runs[index].key]! }
    self.runs = runs
  }

  /// When each source's run started, by source index, for the sources whose run is not the
  /// newest one merged: a render left by an abandoned run must not read as today's change.
  /// Only sources that name their run count; empty when they are all one run.
  func earlierRunStarts(_ inventories: [SourceInventory]) -> [Int: Date] {
    let named = runs.indices.filter { inventories[$0].manifest?.run != nil }
    guard let newest = named.map({ runs[$0] }).max(by: { ($0.start, $0.key) < ($1.start, $1.key) })
    else { return [:] }
    var starts: [Int: Date] = [:]
    for index in named where runs[index].key != newest.key { starts[index] = runs[index].start }
    return starts
  }

  /// A run's use of a path that supersedes earlier runs on its host.
  private struct Latest {
    var run: Run
    var rendered: Bool
  }

  /// The decisions, with the images of superseded renders removed from the inventories.
  struct Decisions {
    /// Renders a later run on the same host used again, sorted by path.
    var superseded: [MergePlan.Superseded]
    /// Paths two tests use, sorted by path.
    var shared: [MergePlan.SharedReference]
  }

  /// Removes, from each inventory, the images of paths that a later run on the same host used
  /// again (rendered again, or compared), then finds the references two tests use among the
  /// uses that still count.
  func decide(_ inventories: inout [SourceInventory]) -> Decisions {
    let latest = latestUses(inventories)
    let counts = { (index: Int, path: String) -> Bool in
      let run = runs[index]
      // Most merges (one run, or shards of one plan) order nothing: no key is built then.
      guard !latest.isEmpty, run.isOrdered, let later = latest[run.host + "\u{0}" + path] else {
        return true
      }
      return later.run.key == run.key
    }
    var superseded: [MergePlan.Superseded] = []
    for index in inventories.indices {
      let source = inventories[index].source.description
      inventories[index].images.removeAll { image in
        guard !counts(index, image.path),
          let later = latest[runs[index].host + "\u{0}" + image.path]
        else { return false }
        superseded.append(
          .init(
            path: image.path, test: image.test, source: source,
            laterRunRenderedAgain: later.rendered, laterRunStart: later.run.start))
        return true
      }
    }
    superseded.sort { ($0.path, $0.source) < ($1.path, $1.source) }
    return Decisions(superseded: superseded, shared: sharedReferences(inventories, counts: counts))
  }

  /// For each host with several ordered runs and each path they used: the latest run that used
  /// it, and whether that run rendered it.
  private func latestUses(_ inventories: [SourceInventory]) -> [String: Latest] {
    let ordered = runs.filter(\.isOrdered)
    let hostsWithSeveralRuns = Set(
      Dictionary(grouping: ordered, by: \.host).filter { Set($0.value.map(\.key)).count > 1 }
        .keys)
    guard !hostsWithSeveralRuns.isEmpty else { return [:] }
    var latest: [String: Latest] = [:]
    for (index, inventory) in inventories.enumerated() {
      let run = runs[index]
      guard run.isOrdered, hostsWithSeveralRuns.contains(run.host) else { continue }
      let rendered = Set(inventory.images.map(\.path))
      for path in Self.usedPaths(inventory) {
        let key = run.host + "\u{0}" + path
        let renders = rendered.contains(path)
        guard let seen = latest[key] else {
          latest[key] = Latest(run: run, rendered: renders)
          continue
        }
        if seen.run.key == run.key {
          latest[key]?.rendered = seen.rendered || renders
        } else if (run.start, run.key) > (seen.run.start, seen.run.key) {
          latest[key] = Latest(run: run, rendered: renders)
        }
      }
    }
    return latest
  }

  /// Every path a source's run used: rendered, recorded unchanged, or compared.
  private static func usedPaths(_ inventory: SourceInventory) -> Set<String> {
    var paths = Set(inventory.images.map(\.path))
    paths.formUnion(inventory.manifest?.verifiedReferences ?? [])
    paths.formUnion((inventory.manifest?.referenceUses ?? []).map(\.path))
    return paths
  }

  /// The paths that two tests use, among the uses that count: a reference has one owner. Read
  /// from the assertions' records (`referenceUses`) and, for archives of older versions, from
  /// the images' producing tests. Only a path's first test is kept while reading; the owners
  /// are described for the few shared paths alone, so a fleet's merge holds one name per path.
  private func sharedReferences(
    _ inventories: [SourceInventory], counts: (Int, String) -> Bool
  ) -> [MergePlan.SharedReference] {
    // Candidates first: a path whose uses name two tests. A table of every path's string would cost
    // a merge of many archives about 130 bytes an image, a table of each key's first test 50, and a
    // sorted list of every use by path key (`PathKey`) 16 and the sort's 8, one of the largest
    // parts of a fleet merge's peak. The rendered images are met path by path instead, from the
    // inventories' sorted lists; only the uses recorded beside them (`referenceUses`: compared, not
    // rendered) are listed by key. A key two paths share may make a candidate that is not shared;
    // the owners gathered by path below tell them apart. A shared path is never missed: its images
    // meet, and its recorded uses share its key.
    var recorded: [Use] = []
    forEachOwner(inventories, counts: counts, rendered: false) { _, _, use, _ in
      recorded.append(use)
    }
    recorded.sort { $0.key < $1.key }
    var candidates = Set<UInt64>()
    var start = 0
    while start < recorded.count {
      var end = start + 1
      while end < recorded.count && recorded[end].key == recorded[start].key { end += 1 }
      let first = Self.test(of: recorded[start], in: inventories)
      if recorded[start + 1..<end].contains(where: { Self.test(of: $0, in: inventories) != first })
      {
        candidates.insert(recorded[start].key)
      }
      start = end
    }
    ReaderQueue.forEachPath(
      inLists: inventories.map(\.images.count),
      path: { inventories[Int($0.source)].images.path(at: Int($0.image)) }
    ) { places in
      let images = places.lazy.map { inventories[Int($0.source)].images[Int($0.image)] }
      guard let first = images.compactMap(\.test).first else { return }
      lazy var key = PathKey.of(images.first!.path)  // made for the few paths that need it
      var isShared = images.contains { $0.test != nil && $0.test != first }
      if !isShared && !recorded.isEmpty {
        isShared = recorded[recorded.lowerBound { $0.key < key }...].prefix { $0.key == key }
          .contains { Self.test(of: $0, in: inventories) != first }
      }
      if isShared { candidates.insert(key) }
    }
    recorded = []
    guard !candidates.isEmpty else { return [] }
    let isCandidate = { (path: String) in candidates.contains(PathKey.of(path)) }
    var owners: [String: [String: String]] = [:]  // path → test → how it used the path
    forEachOwner(inventories, counts: counts) { path, test, use, description in
      guard candidates.contains(use.key), owners[path, default: [:]][test] == nil else { return }
      owners[path, default: [:]][test] = description()
    }
    // The uses of rendered images were let go while reading: their places are read again from
    // the manifests of the sources that render a shared path, which are few.
    for (index, inventory) in inventories.enumerated()
    where inventory.images.contains(where: { isCandidate($0.path) }) {
      for use in Self.uses(of: inventory.source, limits: limits)
      where isCandidate(use.path) && counts(index, use.path) {
        owners[use.path, default: [:]][use.owner] = "\(use.place), \(use.verdict.rawValue)"
      }
    }
    return owners.filter { $0.value.count > 1 }
      .map { .init(path: $0.key, owners: $0.value.values.sorted()) }
      .sorted { $0.path < $1.path }
  }

  /// The uses a source's manifest records, read again; none when it cannot be read.
  private static func uses(of source: MergeSource, limits: ArchiveLimits)
    -> [ArchiveManifest.ReferenceUse]
  {
    var uses: [ArchiveManifest.ReferenceUse] = []
    try? SourceReader(limits: limits).forEachEntry(
      of: source, wantsData: { $0 == ArchiveManifest.entryName }
    ) {
      (entry) throws(MergeError) in
      guard entry.path == ArchiveManifest.entryName, !entry.bytes.isEmpty else { return }
      let manifest = try MergeError.catching { () throws(ManifestError) in
        try ArchiveManifest.decode(Data(entry.bytes), source: source.description)
      }
      uses = manifest.referenceUses ?? []
    }
    return uses
  }

  /// A counted use: its path's key, and where its test is named.
  private struct Use {
    var key: UInt64
    /// The inventory's position.
    var source: Int32
    /// The use's position among the manifest's `referenceUses`, then (after them) the image's
    /// among the inventory's images.
    var slot: Int32
  }

  /// The test a use names.
  private static func test(of use: Use, in inventories: [SourceInventory]) -> String {
    let inventory = inventories[Int(use.source)]
    let uses = inventory.manifest?.referenceUses ?? []
    let slot = Int(use.slot)
    return slot < uses.count ? uses[slot].owner : inventory.images[slot - uses.count].test ?? ""
  }

  /// Calls `body` with each counted use of a path: its test, where the test is named, and a
  /// description of the use.
  /// - Parameter rendered: Whether the images' producing tests are counted too.
  private func forEachOwner(
    _ inventories: [SourceInventory], counts: (Int, String) -> Bool, rendered: Bool = true,
    _ body: (String, String, Use, () -> String) -> Void
  ) {
    for (index, inventory) in inventories.enumerated() {
      let uses = inventory.manifest?.referenceUses ?? []
      for (slot, use) in uses.enumerated() where counts(index, use.path) {
        let named = Use(key: PathKey.of(use.path), source: Int32(index), slot: Int32(slot))
        body(use.path, use.owner, named) { "\(use.place), \(use.verdict.rawValue)" }
      }
      // The uses kept beside an image are other owners' (the inventory let its own go), so the
      // image's owner is counted too: a case whose render was archived and a case refused
      // for the same path in one process are two owners.
      for (position, image) in inventory.images.enumerated() where rendered {
        guard let test = image.test else { continue }
        let named = Use(
          key: PathKey.of(image.path), source: Int32(index), slot: Int32(uses.count + position))
        body(image.path, test, named) { "\(test), rendered" }
      }
    }
  }
}
