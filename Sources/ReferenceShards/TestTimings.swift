import Foundation

/// Per-test durations from earlier runs (`reference-timings.json`), which the next plan
/// balances by. `merge-refs --timings-output` writes it from the shards' records.
public struct TestTimings: Codable, Sendable, Equatable {
  /// The schema version this code writes and reads.
  public static let currentFormatVersion = 1

  /// The schema version.
  public var formatVersion: Int
  /// Seconds per test, by its `swift test list` name.
  public var tests: [String: Double]

  /// Creates timings.
  public init(tests: [String: Double]) {
    self.formatVersion = Self.currentFormatVersion
    self.tests = tests
  }

  /// Reads a timings file.
  /// - Parameter url: The file.
  /// - Returns: The timings.
  /// - Throws: `ShardError.unusableTimings` when the file cannot be read, is not the JSON this
  ///   tool writes, or holds a negative or non-finite duration.
  public static func read(from url: URL) throws(ShardError) -> TestTimings {
    let timings: TestTimings
    do {
      timings = try VersionedJSON.read(
        TestTimings.self, from: url, versions: Int.min...currentFormatVersion)
    } catch {
      let reason =
        switch error {
        case .unreadable(let reason): "it cannot be read (\(reason))"
        case .tooNew(let version): "its format version \(version) is newer than this tool reads"
        case .tooOld(let version): "its format version \(version) is not one this tool reads"
        case .undecodable(let reason): "it is not a timings file (\(reason))"
        }
      throw .unusableTimings(path: url.path, reason: reason)
    }
    if let bad = timings.tests.first(where: { !$0.value.isFinite || $0.value < 0 }) {
      throw .unusableTimings(path: url.path, reason: "\(bad.key) has the duration \(bad.value)")
    }
    return timings
  }

  /// The timings as key-sorted JSON, so a committed file changes line by line.
  public func encoded() -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    // Encoding a struct of strings and finite numbers cannot fail.
    return (try? encoder.encode(self)) ?? Data()
  }

  /// The durations recorded by shards, one per test: a test recorded twice keeps the longer.
  /// - Parameter records: The shard records.
  /// - Returns: The combined timings.
  public static func combining(_ records: [ShardRecord]) -> TestTimings {
    var tests: [String: Double] = [:]
    for record in records {
      for run in record.ran { tests[run.test] = max(tests[run.test] ?? 0, run.seconds) }
    }
    return TestTimings(tests: tests)
  }
}
