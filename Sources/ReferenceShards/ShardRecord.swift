import Foundation
import ReferenceContracts

/// `shard.json`: what one shard of a plan was asked to run and what ran, written by
/// `reference-shards run` beside the archives it collected. `merge-refs --require-shards`
/// proves a plan complete from these records.
public struct ShardRecord: Codable, Sendable, Equatable {
  /// The schema version this code writes and reads. Version 2 lists each archive's digest and
  /// keeps the Swift Testing event streams; a version 1 record proves too little to accept.
  public static let currentFormatVersion = 2
  /// The record's file name inside a shard's output folder.
  public static let fileName = GenerationContract.shardRecordName
  /// The folder beside the record that holds the workers' archives.
  public static let archivesFolderName = GenerationContract.shardArchivesFolderName
  /// The folder beside the record that holds the Swift Testing event streams, the evidence of
  /// which Swift Testing tests ran.
  public static let eventsFolderName = GenerationContract.shardEventsFolderName

  /// A file of the shard's evidence: an archive or an event stream, with the digest that ties
  /// it to this record.
  public struct EvidenceFile: Codable, Sendable, Equatable {
    /// The file name inside its folder.
    public var name: String
    /// SHA-256 of the file's bytes.
    public var sha256: String
    /// The images the archive holds (nil for an event stream).
    public var images: Int?

    /// Creates an evidence record.
    public init(name: String, sha256: String, images: Int? = nil) {
      self.name = name
      self.sha256 = sha256
      self.images = images
    }
  }

  /// One test that ran, with the seconds it took and how many times it ran (1 unless a filter
  /// or a retry ran it again).
  public struct Run: Codable, Sendable, Equatable {
    /// The test's `swift test list` name.
    public var test: String
    /// Seconds, summed over its runs.
    public var seconds: Double
    /// How many times it ran.
    public var count: Int

    /// Creates a run record.
    public init(test: String, seconds: Double, count: Int) {
      self.test = test
      self.seconds = seconds
      self.count = count
    }
  }

  /// The schema version.
  public var formatVersion: Int
  /// The commit the tests were built from.
  public var commit: String
  /// This shard's index, 0-based.
  public var index: Int
  /// How many shards the plan has.
  public var count: Int
  /// How many different shards the plan runs each test on (`ShardPlan.replicas`).
  public var replicas: Int
  /// SHA-256 of the plan's sorted test list (`ShardPlan.listingSHA256`).
  public var listingSHA256: String
  /// The tests the plan gave this shard, sorted.
  public var planned: [String]
  /// The tests that ran, sorted by name.
  public var ran: [Run]
  /// When the shard started running tests.
  public var startedAt: Date
  /// When it finished.
  public var endedAt: Date
  /// 0 when every `swift test` batch passed, else the first failing batch's status.
  public var swiftTestStatus: Int32
  /// The archives in `archives/`, sorted by name.
  public var archives: [EvidenceFile]
  /// The event streams in `events/`, sorted by name.
  public var events: [EvidenceFile]
  /// The tests that were skipped (XCTest skips, Swift Testing's disabled tests), sorted: they
  /// count as run for the plan, but verified nothing.
  public var skipped: [String]
  /// The variant the shard's tests ran as (`ReferenceVariants`), in a package that declares
  /// variants and on a platform that is not the base; nil otherwise. `--require-shards` proves
  /// each variant's shards apart.
  public var variant: String?
  /// The platform the shard ran on (`ReferencePlatform.current`: `linux-x86_64`,
  /// `linux-arm64`, …); nil in older records. Where no record names a variant (a package without
  /// `ReferenceVariants.json`), `--require-shards` proves each platform's shards apart, so one
  /// plan run on two platforms is two proofs, not a plan run twice.
  public var platform: String?

  /// Creates a record.
  public init(
    commit: String, index: Int, count: Int, replicas: Int = 1, listingSHA256: String,
    planned: [String],
    ran: [Run], startedAt: Date, endedAt: Date, swiftTestStatus: Int32,
    archives: [EvidenceFile], events: [EvidenceFile] = [], skipped: [String] = [],
    variant: String? = nil, platform: String? = ReferencePlatform.current
  ) {
    self.formatVersion = Self.currentFormatVersion
    self.commit = commit
    self.index = index
    self.count = count
    self.replicas = replicas
    self.listingSHA256 = listingSHA256
    self.planned = planned
    self.ran = ran
    self.startedAt = startedAt
    self.endedAt = endedAt
    self.swiftTestStatus = swiftTestStatus
    self.archives = archives
    self.events = events
    self.skipped = skipped
    self.variant = variant
    self.platform = platform
  }

  /// The record as pretty, key-sorted JSON.
  public func encoded() -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return (try? encoder.encode(self)) ?? Data()
  }

  /// Reads a record.
  /// - Parameter url: The `shard.json` file.
  /// - Returns: The record.
  /// - Throws: `ShardError.io` naming the file when it cannot be read or is not a record.
  public static func read(from url: URL) throws(ShardError) -> ShardRecord {
    do {
      return try VersionedJSON.read(
        ShardRecord.self, from: url, versions: currentFormatVersion...currentFormatVersion)
    } catch {
      let reason =
        switch error {
        case .unreadable(let reason): "the shard record cannot be read (\(reason))"
        case .tooOld(let version):
          "format version \(version) was written by an older reference-shards, whose record "
            + "does not list its archives' digests; run the shards again with this version"
        case .tooNew(let version):
          "format version \(version) is newer than this tool reads; update"
        case .undecodable(let reason): "not a shard record written by reference-shards (\(reason))"
        }
      throw .io(path: url.path, reason: reason)
    }
  }

  /// The total seconds of the tests that ran.
  public var seconds: Double { ran.reduce(0) { $0 + $1.seconds } }
}
