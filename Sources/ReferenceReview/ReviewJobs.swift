import Foundation
import ReferenceArchive
import ReferenceMerge

/// The cards of a report in the order they are made, each with what it needs from the
/// sources: added and updated paths source by source with their archive entry's bytes (each
/// source read once, only the wanted entries, the next batch read while the last is made into
/// cards), then conflicts, then orphans.
struct ReviewJobs {
  let plan: MergePlan
  /// Where the images come from.
  let reader: ReviewImages
  /// How many bytes of images are read ahead at once.
  let readAhead: Int
  /// Each source as the cards name it, by index: made once, not once per card.
  private let sourceLabels: [String]
  private var nextID = 0

  init(plan: MergePlan, reader: ReviewImages, readAhead: Int) {
    self.plan = plan
    self.reader = reader
    self.readAhead = readAhead
    sourceLabels = plan.inventories.map { "\($0.source.description) (\($0.workerSummary))" }
  }

  /// Hands every job to `body`, one at a time.
  /// - Parameter images: Where conflicting sources' images are copied as they are read.
  /// - Throws: What `body` throws, or `ReviewError.io` when a rival image cannot be copied.
  mutating func forEach(
    images: ReportImages, _ body: (ReviewCardMaker.Job) throws(ReviewError) -> Void
  ) throws(ReviewError) {
    try changes(body)
    try conflicts(images: images, body)
    for item in plan.items(.orphan) {
      try body(
        job(item, meta: ["no complete run produced or verified this reference"], after: nil))
    }
    for item in plan.items(.redundant) {
      try body(
        job(item, meta: ["its variant now renders what its fallback holds: not needed"], after: nil)
      )
    }
  }

  /// Added and updated paths, read back from their sources. A read entry finds its item by
  /// binary search of the plan's sorted items, and a card made is marked by the item's
  /// position: a fleet's report holds no table of its paths.
  private mutating func changes(_ body: (ReviewCardMaker.Job) throws(ReviewError) -> Void)
    throws(ReviewError)
  {
    var sourceIndices = Set<Int>()
    for item in plan.items where item.outcome.writesFile {
      if let chosen = item.chosen { sourceIndices.insert(chosen.sourceIndex) }
    }
    let plan = plan
    /// The item an entry of a source lands as, and its position.
    @Sendable func landing(_ sourceIndex: Int, _ path: String) -> (
      position: Int, item: MergePlan.Item
    )? {
      guard let found = plan.item(at: path), found.item.outcome.writesFile,
        found.item.chosen?.sourceIndex == sourceIndex
      else { return nil }
      return found
    }
    var seen = [Bool](repeating: false, count: plan.items.count)
    try reader.forEachImage(
      of: sourceIndices.sorted(), wants: { landing($0, $1) != nil }, batchBytes: readAhead
    ) { (batch) throws(ReviewError) in
      for image in batch {
        guard let (position, item) = landing(image.sourceIndex, image.path), !seen[position]
        else { continue }
        seen[position] = true
        try body(job(item, meta: meta(item), after: image.bytes))
      }
    }
    // Entries a source no longer yields (changed or removed since planning) keep their card.
    for (position, item) in plan.items.enumerated() where item.outcome.writesFile {
      if !seen[position] { try body(job(item, meta: meta(item), after: nil)) }
    }
  }

  /// Conflicts: every rival's image copied from its source, then one job per conflict.
  private mutating func conflicts(
    images: ReportImages, _ body: (ReviewCardMaker.Job) throws(ReviewError) -> Void
  ) throws(ReviewError) {
    // An unstable path shows its replicas' renders as a conflict shows its rivals.
    let conflicts = plan.items.filter { $0.outcome == .conflict || $0.outcome == .unstable }
    guard !conflicts.isEmpty else { return }
    let firstID = nextID
    // Where each (source, path) goes: the card's id and the rival's position.
    var files: [String: [Int: String]] = [:]
    for (offset, item) in conflicts.enumerated() {
      for (position, rival) in item.rivals.enumerated() {
        files[item.path, default: [:]][rival.sourceIndex] =
          ReportImages.name(card: firstID + offset, "rival-\(position)")
      }
    }
    var written = Set<String>()
    var wanted: [Int: Set<String>] = [:]
    for (path, bySource) in files {
      for sourceIndex in bySource.keys { wanted[sourceIndex, default: []].insert(path) }
    }
    try reader.forEachImage(in: wanted, batchBytes: readAhead) { (batch) throws(ReviewError) in
      for image in batch {
        guard let file = files[image.path]?[image.sourceIndex], written.insert(file).inserted
        else { continue }
        try images.write(image.bytes, as: file)
      }
    }
    for item in conflicts {
      let id = nextID
      var job = job(item, meta: meta(item), after: nil)
      for (position, rival) in item.rivals.enumerated() {
        let file = ReportImages.name(card: id, "rival-\(position)")
        var shown = ReviewCard.Rival(
          label: sourceLabels[rival.sourceIndex],
          image: .init(file: file, width: rival.image.width, height: rival.image.height))
        if written.contains(file) {
          job.rivals.append(shown)
        } else if !rival.image.isArchived {
          // A run that recorded the path unchanged archived no image: it saw the reference's
          // pixels, which the card maker copies from the destination when they still are.
          shown.label += ", recorded unchanged"
          job.rivalsSeeingTheReference.append(.init(rival: shown, pixels: rival.image.pixelSHA256))
        }
      }
      try body(job)
    }
  }

  private mutating func job(_ item: MergePlan.Item, meta: [String], after: [UInt8]?)
    -> ReviewCardMaker.Job
  {
    defer { nextID += 1 }
    return ReviewCardMaker.Job(id: nextID, item: item, meta: meta, after: after)
  }

  /// Where the image comes from: source, worker and test, and the run's start when it is not
  /// the newest run merged.
  private func meta(_ item: MergePlan.Item) -> [String] {
    let candidates = item.chosen.map { [$0] } ?? item.rivals
    var lines = candidates.map { candidate in
      var text = "from " + sourceLabels[candidate.sourceIndex]
      if let test = candidate.image.test { text += ", test \(test)" }
      return text
    }
    if let start = plan.earlierRun(of: item) {
      lines.append(
        "from an earlier run, started \(ISO8601DateFormatter().string(from: start)), not the "
          + "newest merged: an archive an abandoned run left?")
    }
    if let failure = item.chosen?.image.failedComparison?.record {
      lines.append(
        "failed comparison at \(failure.file):\(failure.line): \(failure.verdict)")
    }
    if item.resolvedByNewest { lines.append("sources disagreed; the newest run was taken") }
    if item.outcome == .unstable {
      lines.append(
        "replicated runs of this test rendered different pixels: the render is not "
          + "deterministic, so neither was written")
    }
    return lines
  }
}
