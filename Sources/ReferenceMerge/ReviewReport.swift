import Foundation
import ReferenceArchive
import ReferenceImageCore

/// A self-contained HTML page for reviewing a merge: every added, updated, conflicting and
/// orphaned reference with before, after and difference images, pixel counts and provenance.
///
/// Images are embedded as data URIs (no network) and only decoded by the browser when a card
/// scrolls into view, so pages with thousands of entries stay usable. Cards are written as they
/// are read, one source at a time, so memory holds one image, not the whole report.
public struct ReviewReport: Sendable {
  /// The limits for reading sources again.
  public var limits: ArchiveLimits
  /// The `merge-refs` command that lands the merge (program, options, sources, destination);
  /// the page shows it with `--include-from` and the exported decision file.
  public var landCommand: [String] = ["merge-refs", "SOURCE...", "DESTINATION"]

  /// Creates a report writer.
  public init(limits: ArchiveLimits = .default) {
    self.limits = limits
  }

  /// Writes the report for a plan; call before applying it, so "before" is the old file.
  /// - Parameters:
  ///   - plan: The plan.
  ///   - url: The HTML file to write (atomically).
  /// - Throws: `ArchiveError.io` when the file cannot be written.
  public func write(_ plan: MergePlan, to url: URL) throws(ArchiveError) {
    try write(plan, destination: try Destination(root: plan.destination), to: url)
  }

  /// Writes the report, reading the current references through `destination`.
  func write(_ plan: MergePlan, destination: Destination, to url: URL) throws(ArchiveError) {
    var html = ReportHTML.header(plan: plan, landCommand: landCommand)
    let fetcher = SourceFetcher(limits: limits)
    let changed = plan.items.filter { $0.outcome == .added || $0.outcome == .updated }
    let requests = changed.compactMap { item in
      item.chosen.map { SourceFetcher.Request(sourceIndex: $0.sourceIndex, path: item.path) }
    }
    let itemsByPath = Dictionary(changed.map { ($0.path, $0) }) { first, _ in first }
    fetcher.forEachImage(requests, inventories: plan.inventories) { request, after in
      guard let item = itemsByPath[request.path] else { return }
      html += card(item, plan: plan, destination: destination, after: after)
    }
    for item in plan.items(.conflict) {
      html += conflictCard(item, plan: plan, fetcher: fetcher)
    }
    for item in plan.items(.orphan) {
      let before = destination.image(item.path)
      html += ReportHTML.card(
        item: item, meta: ["no complete run produced or verified this reference"],
        figures: [("current", before)])
    }
    html += ReportHTML.footer
    try FileSystem.writeAtomically(Array(html.utf8), to: url)
  }

  private func card(
    _ item: MergePlan.Item, plan: MergePlan, destination: Destination, after: RGBAImage
  ) -> String {
    var meta = provenance(item.chosen.map { [$0] } ?? [], plan: plan)
    if item.resolvedByNewest { meta.append("sources disagreed; the newest run was taken") }
    guard item.outcome == .updated, let before = destination.image(item.path) else {
      return ReportHTML.card(item: item, meta: meta, figures: [("new", after)])
    }
    let result = ImageComparison.exact.compare(after, to: before)
    meta.insert(result.description, at: 0)
    return ReportHTML.card(
      item: item, meta: meta,
      figures: [
        ("before", before), ("after", after),
        ("difference", ImageComparison.exact.differenceImage(after, before)),
      ],
      overlay: before.size == after.size ? (before, after) : nil)
  }

  private func conflictCard(_ item: MergePlan.Item, plan: MergePlan, fetcher: SourceFetcher)
    -> String
  {
    let rivals = Array(item.rivals.prefix(2))
    let images = fetcher.images(
      rivals.map { .init(sourceIndex: $0.sourceIndex, path: item.path) },
      inventories: plan.inventories)
    let pair = rivals.map { images[.init(sourceIndex: $0.sourceIndex, path: item.path)] }
    var figures: [(String, RGBAImage?)] = zip(rivals, pair).map { rival, image in
      (plan.inventories[rival.sourceIndex].workerSummary, image)
    }
    if let first = pair.first ?? nil, let second = pair.last ?? nil {
      figures.append(("difference", ImageComparison.exact.differenceImage(first, second)))
    }
    var meta = provenance(item.rivals, plan: plan)
    if let pixels = item.conflictingPixels { meta.insert("\(pixels) pixels differ", at: 0) }
    return ReportHTML.card(item: item, meta: meta, figures: figures)
  }

  private func provenance(_ candidates: [MergePlan.Candidate], plan: MergePlan) -> [String] {
    candidates.map { candidate in
      let inventory = plan.inventories[candidate.sourceIndex]
      var text = "from \(inventory.source.description) (\(inventory.workerSummary))"
      if let test = candidate.image.test { text += ", test \(test)" }
      return text
    }
  }
}
