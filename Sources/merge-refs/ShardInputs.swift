import Foundation
import ReferenceArchive
import ReferenceMerge
import ReferenceShards

/// The shard records among the SOURCE folders, and what the merge does with them: the proof
/// (`--require-shards`), the combined timings and the job summary's shard table.
struct ShardInputs: Sendable {
  /// The records found, with their folders.
  let sources: [ShardCheck.Source]
  /// Problems met reading them (only reported with `--require-shards`).
  let readProblems: [ShardProblem]

  /// Reads the records: with `requireAll`, every SOURCE must be a shard folder, and its files
  /// are read as the evidence of what ran; otherwise the folders without a record are ordinary
  /// sources.
  init(sourcePaths: [String], requireAll: Bool) {
    let paths = requireAll ? sourcePaths : sourcePaths.filter(ShardFolder.isShardFolder)
    if requireAll {
      // A listed file that is gone refuses the merge from the records and the folders'
      // listings alone, before any archive is hashed or read.
      let (records, problems) = ShardFolder.records(in: paths)
      let lost = Self.lostFiles(records)
      if !lost.isEmpty {
        (sources, readProblems) = (records, problems + lost)
        return
      }
    }
    // Each folder's evidence (every archive hashed, its manifest read) on every core, the
    // folders' results in their order: read one folder after another, it would be a long
    // stretch of one busy core in an up-to-date rerun of a fleet, while the merge's own
    // reading uses them all.
    let folders = ConcurrentSlots.perform(paths.count) { index in
      ShardFolder.records(in: [paths[index]], readingEvidence: requireAll)
    }
    (sources, readProblems) = (folders.flatMap(\.sources), folders.flatMap(\.problems))
  }

  private init(sources: [ShardCheck.Source], readProblems: [ShardProblem]) {
    (self.sources, self.readProblems) = (sources, readProblems)
  }

  /// These inputs without the lists of the files the records name and the folders hold, once
  /// `recordProblems` found nothing wrong with them: only that check reads them, and a fleet's
  /// thousands of archive names and digests were otherwise held through the whole merge. The
  /// proof of the runs read (`proof(of:)`) then finds in them what it found before: nothing.
  func droppingProvenFileLists() -> ShardInputs {
    ShardInputs(
      sources: sources.map { source in
        var source = source
        source.record.archives = []
        source.record.events = []
        source.evidence?.archives = []
        source.evidence?.events = []
        return source
      }, readProblems: readProblems)
  }

  /// The files a record lists that its folder no longer holds, named by the shard's platform
  /// too where several platforms ran one plan (each has a shard 0): "shard 0 of macos".
  private static func lostFiles(_ sources: [ShardCheck.Source]) -> [ShardProblem] {
    let apart = ShardCheck.provesPlatformsApart(sources.map(\.record))
    return sources.flatMap { source in
      lostFiles(source).map { problem in
        guard apart, let platform = source.record.platform else { return problem }
        return .onPlatform(platform, problem)
      }
    }
  }

  /// The archives and event streams a record lists that its folder no longer holds.
  private static func lostFiles(_ source: ShardCheck.Source) -> [ShardProblem] {
    let folder = URL(fileURLWithPath: source.name)
    let listed = [
      (ShardRecord.archivesFolderName, source.record.archives),
      (ShardRecord.eventsFolderName, source.record.events),
    ]
    return listed.flatMap { name, files in
      files.compactMap { file -> ShardProblem? in
        let path = folder.appendingPathComponent(name).appendingPathComponent(file.name).path
        guard !FileManager.default.fileExists(atPath: path) else { return nil }
        return .evidenceMissing(
          shard: source.record.index, file: "\(source.name)/\(name)/\(file.name)")
      }
    }
  }

  /// The `--require-shards` check of the runs read: the problems, the skipped tests, and why
  /// orphans must not be looked for when a shard's tests failed.
  /// What the records and the files they list prove wrong on their own (a listed archive
  /// missing or changed, a planned shard missing, two records of one shard), checked before
  /// any archive is read for the merge.
  func recordProblems() -> [MergeProblem] {
    (readProblems + ShardCheck().problems(sources: sources)).map {
      .unprovenShards($0.description)
    }
  }

  func proof(of inventories: [SourceInventory]) -> PlanCheck {
    let archives = inventories.compactMap { inventory -> ShardCheck.Archive? in
      guard let durations = inventory.manifest?.testDurations else { return nil }
      return .init(name: inventory.source.description, tests: durations.map(\.test))
    }
    let problems = readProblems + ShardCheck().problems(sources: sources, archives: archives)
    // A shard whose `swift test` failed with no failed test on record (a crash, a build that
    // failed) may have stopped anywhere: no orphan search. Failed tests on record keep what
    // they may own, and everything else is searched.
    let unexplained = sources.filter {
      $0.record.swiftTestStatus != 0 && ($0.evidence?.failed ?? []).isEmpty
    }.sorted { $0.record.index < $1.record.index }
    let failure = unexplained.first.map {
      "`swift test` failed in shard \($0.record.index) (status \($0.record.swiftTestStatus)) "
        + "with no failed test on record, and it may have stopped before every test stored "
        + "its images"
    }
    return PlanCheck(
      problems: problems.map { .unprovenShards($0.description) },
      skippedTests: Array(Set(sources.flatMap { $0.evidence?.skipped ?? [] })).sorted(),
      skippedTestFiles: sources.reduce(into: [:]) { files, source in
        files.merge(source.evidence?.skippedFiles ?? [:]) { first, _ in first }
      },
      failedTests: Array(Set(sources.flatMap { $0.evidence?.failed ?? [] })).sorted(),
      failedTestFiles: sources.reduce(into: [:]) { files, source in
        files.merge(source.evidence?.failedFiles ?? [:]) { first, _ in first }
      },
      orphanRefusal: failure)
  }

  /// The shard rows of the job summary, with the images their archives hold.
  func summaryShards(_ plan: MergePlan?) -> [JobSummary.Shard] {
    // A package without variants run on several platforms: its shards are named by platform.
    let byPlatform = ShardCheck.provesPlatformsApart(sources.map(\.record))
    return sources.map { source in
      let folder = URL(fileURLWithPath: source.name).standardizedFileURL.path + "/"
      let images = (plan?.inventories ?? []).filter { $0.source.description.hasPrefix(folder) }
        .reduce(0) { $0 + $1.imageCount }
      let record = source.proven
      return JobSummary.Shard(
        index: record.index, count: record.count, planned: record.planned.count,
        ran: record.ran.count, ranOnce: record.ran.filter { $0.count == 1 }.count,
        skipped: record.skipped.count, seconds: record.seconds,
        swiftTestStatus: record.swiftTestStatus, images: images,
        variant: record.variant ?? (byPlatform ? source.record.platform : nil))
    }
  }

  /// Writes the combined durations for the next plan.
  func writeTimings(to path: String) throws {
    let timings = TestTimings.combining(sources.map(\.record))
    try FileSystem.writeAtomically(Array(timings.encoded()), to: URL(fileURLWithPath: path))
  }
}

/// Appends lines to a file through a buffer, so a long summary is never one string.
final class LineAppender {
  private let handle: FileHandle
  private var buffer: [UInt8] = []

  init(path: String) throws {
    if !FileManager.default.fileExists(atPath: path) {
      guard FileManager.default.createFile(atPath: path, contents: nil) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
      }
    }
    handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
  }

  func append(_ line: String) throws {
    buffer.append(contentsOf: line.utf8)
    buffer.append(0x0A)
    if buffer.count >= 1 << 16 { try flush() }
  }

  func close() throws {
    try flush()
    try handle.close()
  }

  private func flush() throws {
    try handle.write(contentsOf: buffer)
    buffer.removeAll(keepingCapacity: true)
  }
}
