import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// What a shard's folder proves: the archives and event streams in it, each with its digest,
/// and the tests they say ran or were skipped. The runner records it in `shard.json`; the
/// merge reads it again from the files and believes the files, not the record.
public struct ShardEvidence: Sendable {
  /// The archives in `archives/`, sorted by name.
  public var archives: [ShardRecord.EvidenceFile] = []
  /// The event streams in `events/`, sorted by name.
  public var events: [ShardRecord.EvidenceFile] = []
  /// Every run of every test, from the archives' manifests (XCTest) and the event streams
  /// (Swift Testing); skipped tests are runs too, for the plan.
  public var runs: [ArchiveRun] = []
  /// The tests that were skipped, sorted.
  public var skipped: [String] = []
  /// The source file of each skipped Swift Testing test, by name (`EventStream`).
  public var skippedFiles: [String: String] = [:]
  /// The tests that failed, sorted: from the archives' manifests (XCTest) and the event streams
  /// (Swift Testing).
  public var failed: [String] = []
  /// The source file of each failed test, by name: the file of an XCTest test's first failure
  /// (its manifest), a Swift Testing test's own file (`EventStream`).
  public var failedFiles: [String: String] = [:]
  /// Files that could not be read, with why.
  public var unreadable: [(file: String, reason: String)] = []

  /// Reads a shard's folders.
  /// - Parameters:
  ///   - archives: The `archives/` folder.
  ///   - events: The `events/` folder.
  ///   - log: Receives a warning for each file that cannot be read.
  /// - Returns: The evidence; a missing folder holds none.
  public static func collect(
    archives: URL, events: URL, log: (String) -> Void = { _ in }
  ) throws(ShardError) -> ShardEvidence {
    var evidence = ShardEvidence()
    var skipped = Set<String>()
    var failed = Set<String>()
    for url in files(in: archives, suffix: ".zip") {
      do {
        let manifest = try facts(in: url)
        evidence.archives.append(
          .init(
            name: url.lastPathComponent, sha256: try FileSystem.sha256(of: url),
            // Images recorded unchanged were rendered too: the shard's count does not
            // depend on whether their references already held them.
            images: manifest?.imageCount ?? 0))
        evidence.runs += (manifest?.testDurations ?? []).map {
          ArchiveRun(test: $0.test, seconds: $0.seconds)
        }
        skipped.formUnion(manifest?.skippedTests ?? [])
        for record in manifest?.failedTests ?? [] {
          failed.insert(record.test)
          if let file = record.file { evidence.failedFiles[record.test] = file }
        }
      } catch {
        // The merge refuses the archive too, naming it; here its tests are not on record.
        log("warning: \(url.path) cannot be read, its tests are not on record: \(error)")
        evidence.unreadable.append((url.path, "\(error)"))
      }
    }
    for url in files(in: events, suffix: ".jsonl") {
      do {
        // Read once: the digest and the runs come from the same bytes.
        let bytes = try FileSystem.read(url)
        evidence.events.append(.init(name: url.lastPathComponent, sha256: SHA256.hex(bytes)))
        let results = EventStream.results(in: Data(bytes))
        evidence.runs += results.runs
        skipped.formUnion(results.skipped)
        evidence.skippedFiles.merge(results.skippedFiles) { first, _ in first }
        failed.formUnion(results.failed)
        evidence.failedFiles.merge(results.failedFiles) { first, _ in first }
      } catch {
        log("warning: \(url.path) cannot be read, its tests are not on record: \(error)")
        evidence.unreadable.append((url.path, "\(error)"))
      }
    }
    evidence.skipped = skipped.sorted()
    evidence.failed = failed.sorted()
    return evidence
  }

  /// The regular files of a folder with a suffix, sorted by name; none when it is missing.
  static func files(in folder: URL, suffix: String) -> [URL] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(suffix) }.sorted().map {
      folder.appendingPathComponent($0)
    }
  }

  /// What the evidence needs of an archive's manifest, read without the images' bytes: from
  /// its first entry, where the coordinator writes it, else from a scan of every entry.
  /// - Throws: `ArchiveError` for an archive it cannot read, `ManifestError` for its manifest.
  static func facts(in archive: URL) throws -> ArchiveManifest.Facts? {
    let reader = ZipReader()
    var manifest: Data?
    if let first = try reader.firstEntry(in: .file(archive)),
      first.path == ArchiveManifest.entryName
    {
      manifest = Data(first.bytes)
    } else {
      try reader.forEachEntry(
        in: .file(archive), wantsData: { $0 == ArchiveManifest.entryName }
      ) { entry in
        guard entry.path == ArchiveManifest.entryName else { return }
        manifest = Data(entry.bytes)
      }
    }
    return try manifest.map { (data) throws(ManifestError) in
      try ArchiveManifest.Facts.read(data, source: archive.path)
    }
  }
}
