import ArgumentParser
import Foundation
import ReferenceContracts
import ReferenceShards

/// The options that say which shard of which plan.
struct ShardOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "This shard's index, 0-based (default: $\(ShardRunner.indexVariable)).", valueName: "I"))
  var index: Int?

  @Option(
    help: ArgumentHelp(
      "The number of shards (default: $\(ShardRunner.countVariable)).", valueName: "N"))
  var count: Int?

  @Option(
    help: ArgumentHelp(
      "How many different shards run each test: 2 catches a render that differs from one run "
        + "to the next (default: $\(ShardRunner.replicaCountVariable), else 1).",
      valueName: "R"))
  var replicas: Int?

  @Option(
    help: ArgumentHelp(
      "Balance by the durations in FILE (reference-timings.json); by count without it. A "
        + "missing file plans by count.", valueName: "FILE"))
  var timings: String?

  /// The index, count and replica count from the options or the environment.
  func shard() throws -> (index: Int, count: Int, replicas: Int) {
    let environment = ProcessInfo.processInfo.environment
    guard let count = try count ?? number(environment[ShardRunner.countVariable], "count"),
      let index = try index ?? number(environment[ShardRunner.indexVariable], "index")
    else {
      throw ValidationError(
        "give --index I and --count N, or set \(ShardRunner.indexVariable) and "
          + "\(ShardRunner.countVariable) (in GitHub Actions, from strategy.job-index and "
          + "strategy.job-total)")
    }
    guard count >= 1, (0..<count).contains(index) else {
      throw ValidationError(
        "shard \(index) of \(count) does not exist: --count must be 1 or more and --index from "
          + "0 to \(max(count - 1, 0))")
    }
    let replicas =
      try replicas ?? number(environment[ShardRunner.replicaCountVariable], "replica count") ?? 1
    guard (1...count).contains(replicas) else {
      throw ValidationError(
        "\(replicas) replicas on \(count) shard\(count == 1 ? "" : "s") cannot be: each replica "
          + "of a test runs on a different shard, so --replicas must be from 1 to \(count)")
    }
    return (index, count, replicas)
  }

  private func number(_ value: String?, _ name: String) throws -> Int? {
    guard let value else { return nil }
    guard let number = Int(value.trimmingCharacters(in: .whitespaces)) else {
      throw ValidationError("the shard \(name) from the environment, '\(value)', is not a number")
    }
    return number
  }

  /// The timings, nil when not given or absent (a first run has none yet).
  func loadTimings() throws(ShardError) -> TestTimings? {
    guard let timings, FileManager.default.fileExists(atPath: timings) else { return nil }
    return try TestTimings.read(from: URL(fileURLWithPath: timings))
  }
}

/// Exit statuses of `reference-shards`: merge-refs' numbers for what they share.
enum ShardExit {
  static let refused = ExitStatus.refusedInput.rawValue
}

/// Prints an error and exits with 3.
func refuse(_ error: ShardError) -> ExitCode {
  FileHandle.standardError.write(Data("error: \(error)\n".utf8))
  return ExitCode(ShardExit.refused)
}
