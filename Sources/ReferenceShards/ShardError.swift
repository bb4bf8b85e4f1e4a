import ProcessSupport
import ReferenceContracts

/// Why `reference-shards` cannot plan or run a shard. Each description says what to do.
public enum ShardError: Error, Sendable, Equatable, CustomStringConvertible {
  /// `swift test list` failed.
  case listingFailed(status: Int32, output: String)
  /// `swift test list` listed no test.
  case emptyListing
  /// The timings file cannot be used.
  case unusableTimings(path: String, reason: String)
  /// A saved listing (`--list FILE`) cannot be read.
  case unreadableListing(path: String, reason: String)
  /// The shard's index or count is out of range.
  case badShard(index: Int, count: Int)
  /// The replica count is below 1 or above the number of shards.
  case badReplicas(replicas: Int, count: Int)
  /// No commit was given and none could be found.
  case noCommit
  /// A file of the shard's output could not be written or read.
  case io(path: String, reason: String)
  /// The package's variant declaration cannot be used, or names no variant
  /// `IMAGE_REFERENCE_VARIANT` asks for.
  case variants(VariantError)
  /// This process was interrupted (Ctrl-C, SIGTERM, SIGHUP, or the parent named by
  /// `ShardRunner.parentVariable` exited): the tests were stopped and no record was written.
  case interrupted(signal: Int32)

  public var description: String {
    switch self {
    case .listingFailed(let status, let output):
      "`swift test list --skip-build` failed with status \(status), so there is nothing to plan "
        + "from; run `swift build --build-tests` first, then retry\n\(output)"
    case .emptyListing:
      "`swift test list --skip-build` listed no test; refusing to plan (an empty plan would "
        + "prove nothing). Build the tests with `swift build --build-tests` first"
    case .unusableTimings(let path, let reason):
      "the timings file \(path) cannot be used: \(reason); delete it to plan by test count"
    case .unreadableListing(let path, let reason):
      "the test list \(path) cannot be read: \(reason)"
    case .badShard(let index, let count):
      "shard \(index) of \(count) does not exist: give --count of 1 or more and --index from 0 "
        + "to count - 1"
    case .badReplicas(let replicas, let count):
      "\(replicas) replicas on \(count) shard\(count == 1 ? "" : "s") cannot be: each replica of "
        + "a test runs on a different shard, so give --replicas from 1 to the number of shards "
        + "(\(max(count, 1)))"
    case .noCommit:
      "no commit is known: GITHUB_SHA is unset and `git rev-parse HEAD` failed; give --commit"
    case .io(let path, let reason):
      "\(path): \(reason)"
    case .variants(let error):
      "\(error)"
    case .interrupted(let signal):
      "interrupted by \(Interruption.name(of: signal)): the running tests were stopped and no "
        + "shard record was written; run the same command again to run the shard"
    }
  }
}
