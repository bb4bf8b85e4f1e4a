import Foundation

/// A shard's output folder as `reference-shards run` writes it and CI uploads it:
/// `shard.json` and `archives/*.zip`.
public enum ShardFolder {
  /// Whether a path is a shard's output folder (it holds `shard.json`).
  public static func isShardFolder(_ path: String) -> Bool {
    FileManager.default.fileExists(
      atPath: URL(fileURLWithPath: path).appendingPathComponent(ShardRecord.fileName).path)
  }

  /// Reads the records of SOURCE arguments.
  /// - Parameters:
  ///   - paths: The SOURCE arguments; with `--require-shards` each must be a shard's output
  ///     folder.
  /// - Returns: The records read, and a problem for each SOURCE that is not a shard folder or
  ///   whose record cannot be read.
  ///   - readingEvidence: Whether to read each folder's archives and event streams as the
  ///     evidence of what ran (`--require-shards`).
  public static func records(in paths: [String], readingEvidence: Bool = false) -> (
    sources: [ShardCheck.Source], problems: [ShardProblem]
  ) {
    var sources: [ShardCheck.Source] = []
    var problems: [ShardProblem] = []
    for path in paths {
      guard isShardFolder(path) else {
        problems.append(.notAShardFolder(source: path))
        continue
      }
      let file = URL(fileURLWithPath: path).appendingPathComponent(ShardRecord.fileName)
      do {
        let record = try ShardRecord.read(from: file)
        let folder = URL(fileURLWithPath: path)
        let evidence =
          readingEvidence
          ? try ShardEvidence.collect(
            archives: folder.appendingPathComponent(ShardRecord.archivesFolderName),
            events: folder.appendingPathComponent(ShardRecord.eventsFolderName)) : nil
        sources.append(sharingStrings(.init(name: path, record: record, evidence: evidence)))
      } catch {
        problems.append(.unreadableRecord(source: path, reason: error.description))
      }
    }
    return (sources, problems)
  }

  /// The source with its equal strings sharing one storage. The record and the evidence name
  /// the same tests, archives and digests: a merge of 5,000 archives kept each of those
  /// strings up to three times.
  private static func sharingStrings(_ source: ShardCheck.Source) -> ShardCheck.Source {
    var seen: Set<String> = []
    func shared(_ string: String) -> String { seen.insert(string).memberAfterInsert }
    func shared(_ file: ShardRecord.EvidenceFile) -> ShardRecord.EvidenceFile {
      .init(name: shared(file.name), sha256: shared(file.sha256), images: file.images)
    }
    var source = source
    source.record.planned = source.record.planned.map(shared)
    source.record.ran = source.record.ran.map {
      .init(test: shared($0.test), seconds: $0.seconds, count: $0.count)
    }
    source.record.skipped = source.record.skipped.map(shared)
    source.record.archives = source.record.archives.map(shared)
    source.record.events = source.record.events.map(shared)
    if var evidence = source.evidence {
      evidence.archives = evidence.archives.map(shared)
      evidence.events = evidence.events.map(shared)
      evidence.runs = evidence.runs.map { .init(test: shared($0.test), seconds: $0.seconds) }
      evidence.skipped = evidence.skipped.map(shared)
      source.evidence = evidence
    }
    return source
  }
}
