import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge

/// The review page of a merge: every added, updated, conflicting and orphaned reference with
/// before, after and difference images, pixel counts, changed regions and provenance.
///
/// Written as a stream: a folder (`index.html`, `review.css`, the `review-*.js` scripts that
/// index.html loads, `review-data.js`, `images/`) or, for a path ending in `.html`, one
/// self-contained file with the same page and the images as data URIs. Before and after are the PNG
/// bytes of the destination file and the archive entry, copied (read through the merge's
/// `ReviewImages`, a megabyte ahead of the cards); difference images are made a batch at a time on
/// every core, decoding into the memory of images earlier cards are done with, and written as they
/// are made, so memory holds a few images per core whatever the number of changes
/// (`Documentation/Benchmarks.md`, "Review page"). The page's own files travel inside the program:
/// the `EmbedReviewPage` build plugin turns `ReviewPage/` into Swift literals, so a copied
/// `merge-refs` writes reports too.
///
/// A report knows whether the merge writes what it shows (`changes`): pending (a dry run),
/// stopped (problems or conflicts stopped the merge before writing) or landed. A landed report
/// also keeps the references the merge replaced, byte for byte at their package-relative
/// paths, in a zip without a manifest: `before.zip` inside a report folder, `NAME-before.zip`
/// beside a one-file report `NAME.html`. Its page exports the rejected changes as a restore
/// file (`reference-restore.txt`: `PATH<TAB>LANDED<TAB>EARLIER` pixel digests) for
/// `merge-refs --include-from reference-restore.txt <that zip> DESTINATION`, which puts a
/// reference back only while the package still holds the landed pixels; an added image has no
/// earlier reference, so the page prints an `rm` line for it instead.
public struct ReviewReport: Sendable {
  /// The limits for reading sources again.
  public var limits: ArchiveLimits
  /// The `merge-refs` command that lands the merge (program, options, sources, destination);
  /// the page shows it with `--include-from` and the exported decision file.
  public var landCommand = LandCommand(
    program: ["merge-refs"], arguments: ["SOURCE...", "DESTINATION"])

  /// A command line in two parts (the merge's `LandCommand`).
  public typealias LandCommand = ReferenceMerge.LandCommand
  /// Whether the merge writes what the report shows: the page's first screen says so, and a
  /// landed report's decisions restore instead of land.
  public var changes: ReportRequest.Changes = .pending
  /// Problems and warnings of the run so far, shown at the top of the page.
  public var problems: [String] = []
  public var warnings: [String] = []
  /// How many cards are made at once: a couple per core keeps every core busy while one
  /// card's files are written.
  var batchSize = 2 * ProcessInfo.processInfo.activeProcessorCount
  /// How many bytes of the sources' images are read ahead while cards are made: enough that
  /// the reading thread seldom waits, a few megabytes whatever the number of changes.
  var readAhead = 1 << 20

  /// The file to open for a report written to `url`: the folder's `index.html`, or the file.
  /// - Parameter url: The `--report` path.
  /// - Returns: The page.
  public static func page(for url: URL) -> URL {
    ReportTarget(url: url).isSingleFile ? url : url.appendingPathComponent(ReviewPage.index)
  }

  /// Creates a report writer.
  public init(limits: ArchiveLimits = .default) {
    self.limits = limits
  }

  /// Writes the report for a plan, in the state `changes` says; call before applying it, so
  /// "before" is the old file.
  /// - Parameters:
  ///   - plan: The plan.
  ///   - url: The report: a folder, or one file when it ends in `.html`.
  /// - Throws: `ReviewError.io` when the report cannot be written.
  public func write(_ plan: MergePlan, to url: URL) throws(ReviewError) {
    let reader = try ReviewError.catching { () throws(MergeError) in
      try ReviewImages(plan: plan, limits: limits)
    }
    let finish = try start(plan, reader: reader, to: url)
    try finish(.init(changes: changes, problems: problems))
  }

  /// Writes the cards of the report a merge asks for: the writer `merge-refs` gives
  /// `MergeSession.report`, which finishes it with what applying did.
  /// - Parameters:
  ///   - plan: The finished plan, not yet applied.
  ///   - request: Where to write, the land command, and the run's problems and warnings.
  /// - Returns: The report, to finish once the merge is done.
  /// - Throws: `ReviewError.io` when the report cannot be written.
  @Sendable
  public static func write(_ plan: MergePlan, request: ReportRequest) throws(ReviewError)
    -> UnfinishedReport
  {
    var report = ReviewReport(limits: request.limits)
    report.landCommand = request.landCommand
    report.problems = request.problems
    report.warnings = request.warnings
    report.changes = request.changes
    let fingerprints = FingerprintTally()
    let finish = try report.start(
      plan, reader: ReviewImages(plan: plan, request: request), to: request.url,
      fingerprints: fingerprints)
    var unfinished = UnfinishedReport(page: page(for: request.url)) { try finish($0) }
    unfinished.changeGroups = ChangeGroup.grouping(fingerprints.members)
    unfinished.regionKinds = fingerprints.regionKinds
    return unfinished
  }

  /// Writes the page and the cards, reading the references and the sources' images through
  /// `reader`, and on a report that lands the earlier references, all beside the report under
  /// temporary names; the report it returns writes the facts that end the data (what the merge
  /// did) and puts the report in place.
  func start(
    _ plan: MergePlan, reader: ReviewImages, to url: URL,
    fingerprints: FingerprintTally = FingerprintTally()
  ) throws(ReviewError) -> (ReportRequest.Ending) throws(ReviewError) -> Void {
    let target = ReportTarget(url: url)
    let work = try target.makeWorkFolder()
    let images = work.appendingPathComponent("images")
    let file = target.temporaryFile
    do throws(ReviewError) {
      let output: BufferedOutput
      var tail = ""
      if target.isSingleFile {
        let parts = try ReviewPage.singleFileParts()
        output = try ReviewError.catching { () throws(ArchiveError) in
          try BufferedOutput(creating: file)
        }
        output.write(parts.head)
        tail = parts.tail
      } else {
        for name in ReviewPage.names {
          let page = try ReviewPage.file(name)
          try ReviewError.catching { () throws(ArchiveError) in
            try FileSystem.write(page, to: work.appendingPathComponent(name))
          }
        }
        output = try ReviewError.catching { () throws(ArchiveError) in
          try BufferedOutput(creating: work.appendingPathComponent(ReviewPage.data))
        }
      }
      var data = ReviewData(
        output, imageSource: target.isSingleFile ? .dataURI(images: images) : .file)
      let earlier = try writeCards(
        plan, reader: reader, images: images, to: &data, target: target,
        fingerprints: fingerprints)
      let zip = work.appendingPathComponent(ReportTarget.earlierReferencesName)
      try writeEarlierReferences(earlier, to: zip)
      let ending = ReportEnding(
        report: self, plan: plan, target: target, work: work, file: file, output: output,
        tail: tail)
      return { (end) throws(ReviewError) in try ending.finish(end, data: &data) }
    } catch {
      target.discard(work, file)
      throw error
    }
  }

  /// Streams the cards batch by batch as they are made; the facts that depend on what the
  /// merge did come after them (`ReportEnding`).
  /// - Returns: On a report that lands, the references the merge replaces: each updated card's
  ///   path and its copy of the earlier file in `images`, kept for `writeEarlierReferences`.
  private func writeCards(
    _ plan: MergePlan, reader: ReviewImages, images: URL, to data: inout ReviewData,
    target: ReportTarget, fingerprints: FingerprintTally
  ) throws(ReviewError) -> [ZipWriter.Entry] {
    // In one file the images live on only as data URIs.
    let inline = target.isSingleFile
    data.begin()
    let maker = ReviewCardMaker(
      images: ReportImages(folder: images), reader: reader, variants: plan.variants)
    var jobs = ReviewJobs(plan: plan, reader: reader, readAhead: readAhead)
    var pending: [ReviewCardMaker.Job] = []
    var earlier: [ZipWriter.Entry] = []
    func flush() throws(ReviewError) {
      for card in try make(pending, with: maker) {
        try data.write(card)
        fingerprints.note(card)
        var kept: String?
        if changes == .landed, card.outcome == .updated, card.beforePixels != nil,
          let before = card.before
        {
          kept = before.file
          earlier.append(
            .init(path: card.path, contents: .file(images.appendingPathComponent(before.file))))
        }
        // In one file the images live on only as data URIs (and the earlier references in
        // their zip, written at the end).
        if inline {
          for file in card.files where file != kept {
            unlink(images.appendingPathComponent(file).path)
          }
        }
      }
      pending.removeAll(keepingCapacity: true)
    }
    try jobs.forEach(images: ReportImages(folder: images)) { (job) throws(ReviewError) in
      pending.append(job)
      if pending.count >= batchSize { try flush() }
    }
    try flush()
    return earlier
  }

  /// Writes the earlier references of a report that lands, byte for byte at their
  /// package-relative paths, as a zip without a manifest: the source the restore command
  /// reads. Nothing when the merge replaces no reference.
  private func writeEarlierReferences(_ entries: [ZipWriter.Entry], to zip: URL)
    throws(ReviewError)
  {
    guard !entries.isEmpty else { return }
    let marker = ZipWriter.Entry(
      path: ReportRequest.earlierReferencesMarker,
      contents: .bytes(Array(ReportRequest.earlierReferencesNote.utf8)))
    try ReviewError.catching { () throws(ArchiveError) in
      try ZipWriter().write([marker] + entries.sorted { $0.path < $1.path }, to: zip)
    }
  }

  /// Makes a batch of cards on every core; the cards come back in the jobs' order.
  private func make(_ jobs: [ReviewCardMaker.Job], with maker: ReviewCardMaker)
    throws(ReviewError) -> [ReviewCard]
  {
    let results = ConcurrentSlots<Result<ReviewCard, ReviewError>>.perform(jobs.count) {
      index in
      Result { () throws(ReviewError) in try maker.make(jobs[index]) }
    }
    return try results.map { (result) throws(ReviewError) in try result.get() }
  }

  /// The facts that end the data, as the merge left the package: on a landed report the
  /// restore file and command, else the decision file and the land command.
  fileprivate func header(_ plan: MergePlan, target: ReportTarget, ending: ReportRequest.Ending)
    -> ReviewData.Header
  {
    var random = SystemRandomNumberGenerator()
    let id = (0..<4).map { _ in
      String(format: "%08x", UInt32.random(in: 0...UInt32.max, using: &random))
    }
    .joined()
    // The destination as the land command names it: absolute, or as given for a command that
    // travels (`--report-program`).
    let destinationWord = landCommand.arguments.last ?? plan.destination.path
    let decisionFile: String
    let command: [String]
    if ending.changes == .landed {
      decisionFile = ReportRequest.restoreFileName
      command =
        landCommand.program + [
          "--include-from", decisionFile,
          Self.word(for: target.earlierReferences, like: destinationWord), destinationWord,
        ]
    } else {
      decisionFile = ReportRequest.decisionFileName
      command = landCommand.program + ["--include-from", decisionFile] + landCommand.arguments
    }
    return ReviewData.Header(
      id: id, destination: plan.destination.path, generatedAt: Date(), changes: ending.changes,
      notWritten: ending.notWritten, decisionFile: decisionFile, command: command,
      commandDestination: destinationWord, counts: plan.counts, skipped: plan.skipped.count,
      sources: plan.inventories, problems: ending.problems, warnings: warnings,
      skippedTests: plan.skippedTests)
  }

  /// A path as a command word of the same kind as `reference`: absolute beside an absolute
  /// destination; beside a relative one (a command that travels), relative to the current
  /// folder, where the merge read its relative arguments, when the path is inside it.
  static func word(for url: URL, like reference: String) -> String {
    let path = url.standardizedFileURL.path
    guard !reference.hasPrefix("/") else { return path }
    var base = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      .standardizedFileURL.path
    if !base.hasSuffix("/") { base += "/" }
    return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
  }
}

/// The end of a report whose cards are written: the facts that depend on what the merge did,
/// then the report put in place, with its earlier references only when the merge wrote.
private struct ReportEnding {
  let report: ReviewReport
  let plan: MergePlan
  let target: ReportTarget
  /// The work folder (the report folder under a temporary name, or the single file's scratch
  /// folder), holding the earlier references' zip, if any.
  let work: URL
  /// The single file under its temporary name.
  let file: URL
  let output: BufferedOutput
  /// What follows the data in a single file.
  let tail: String

  /// Ends the data with `ending`'s facts and puts the report in place; removes it all when
  /// that fails.
  func finish(_ ending: ReportRequest.Ending, data: inout ReviewData) throws(ReviewError) {
    let zip = work.appendingPathComponent(ReportTarget.earlierReferencesName)
    do throws(ReviewError) {
      data.end(report.header(plan, target: target, ending: ending))
      output.write(tail)
      try ReviewError.catching { () throws(ArchiveError) in try output.finish() }
      // Nothing written, nothing to restore: no restore source either.
      if ending.changes != .landed { unlink(zip.path) }
      guard target.isSingleFile else {
        try target.landFolder(work)
        return
      }
      if FileManager.default.fileExists(atPath: zip.path) {
        try ReviewError.catching { () throws(ArchiveError) in
          try FileSystem.rename(zip, to: target.earlierReferences)
        }
      }
      try ReviewError.catching { () throws(ArchiveError) in
        try FileSystem.rename(file, to: target.url)
      }
      target.discard(work)
    } catch {
      target.discard(work, file)
      throw error
    }
  }
}

/// What the cards found, as they are written, for the summaries: the updated cards' change
/// fingerprints (a key, a label and a path each, for the change groups) and every compared
/// card's regions with their kinds (for `--json`).
final class FingerprintTally {
  private(set) var members: [(key: String, label: String, path: String)] = []
  private(set) var regionKinds: [String: [RegionKind]] = [:]

  func note(_ card: ReviewCard) {
    if let regions = card.comparison?.kinds, !regions.isEmpty {
      regionKinds[card.path] = regions.map { region in
        RegionKind(
          kind: region.kind.name, label: region.kind.description,
          box: [
            region.box.minX, region.box.minY, region.box.maxX - region.box.minX + 1,
            region.box.maxY - region.box.minY + 1,
          ], changedPixels: region.changedPixelCount)
      }
    }
    guard card.outcome == .updated, let fingerprint = card.comparison?.fingerprint else { return }
    members.append((fingerprint.key, fingerprint.label, card.path))
  }
}
