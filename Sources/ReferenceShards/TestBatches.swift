import ReferenceContracts

/// Splits a shard's tests into `swift test` command lines that each stay under a size limit:
/// one `--filter` per test, and as many tests per command as fit.
///
/// The kernel refuses a single argument over 128 KiB and all arguments and environment over
/// its `ARG_MAX` (E2BIG), so one alternation of 5,000 names cannot run; many short commands
/// can.
public struct TestBatches: Sendable {
  /// The limit `reference-shards run` uses: 100 KiB of arguments per command.
  public static let defaultLimit = 100 * 1024

  /// The most bytes one command line may take (`size(of:)`).
  public var limit: Int

  /// Creates a batcher.
  public init(limit: Int = defaultLimit) {
    self.limit = limit
  }

  /// The bytes a command line takes in the kernel's argument area: each argument and its
  /// terminating NUL.
  public static func size(of arguments: [String]) -> Int {
    arguments.reduce(0) { $0 + $1.utf8.count + 1 }
  }

  /// The command lines that run `tests`, in order, each `prefix(batchIndex)` followed by
  /// `--filter PATTERN` for each of its tests. No tests, no commands: an empty filter would run
  /// every Swift Testing test.
  /// - Parameters:
  ///   - tests: The tests to run.
  ///   - prefix: The program and fixed arguments of the command with the given index.
  /// - Returns: The command lines.
  /// - Throws: `ShardError.io` when one test's filter alone does not fit.
  public func commands(tests: [String], prefix: (Int) -> [String]) throws(ShardError)
    -> [[String]]
  {
    var commands: [[String]] = []
    var current = prefix(0)
    var size = Self.size(of: current)
    var filters = 0
    for test in tests {
      let filter = ["--filter", TestFilter.pattern(for: test)]
      let added = Self.size(of: filter)
      if size + added > limit && filters > 0 {
        commands.append(current)
        current = prefix(commands.count)
        size = Self.size(of: current)
        filters = 0
      }
      guard size + added <= limit else {
        throw .io(
          path: test, reason: "this test's name is too long for one command line (\(added) bytes)")
      }
      current += filter
      size += added
      filters += 1
    }
    if filters > 0 { commands.append(current) }
    return commands
  }
}
