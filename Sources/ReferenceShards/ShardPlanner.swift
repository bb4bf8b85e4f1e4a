/// Assigns tests (not classes) to shards: longest first onto the least-loaded shard, a test
/// without a recorded duration counted as the median of those with one, and by count when
/// there are no durations. Ties go by test name and then shard index, so the plan is a pure
/// function of its inputs.
public struct ShardPlanner: Sendable {
  /// The durations to balance by; nil or empty to balance by count.
  public var timings: TestTimings?

  /// Creates a planner.
  public init(timings: TestTimings? = nil) {
    self.timings = timings
  }

  /// Plans `count` shards.
  /// - Parameters:
  ///   - tests: The listing (any order; repeated names count once).
  ///   - count: The number of shards, 1 or more.
  /// - Returns: The plan.
  public func plan(tests: [String], count: Int) -> ShardPlan {
    let sorted = Array(Set(tests)).sorted()
    let weights = self.weights(sorted)
    // Longest first; equal durations by name, so every machine orders them alike.
    let order = sorted.indices.sorted {
      weights[$0] != weights[$1] ? weights[$0] > weights[$1] : sorted[$0] < sorted[$1]
    }
    var shards = Array(repeating: [String](), count: max(count, 1))
    var loads = Array(repeating: 0.0, count: shards.count)
    for index in order {
      let target = leastLoaded(loads, shards)
      shards[target].append(sorted[index])
      loads[target] += weights[index]
    }
    return ShardPlan(
      shards: shards.map { $0.sorted() }, expectedSeconds: loads,
      isTimed: weights.isTimed, listingSHA256: ShardPlan.listingDigest(sorted))
  }

  /// Each test's weight: its duration, the median for tests without one, or 1 for all.
  private func weights(_ sorted: [String]) -> Weights {
    let recorded = timings?.tests ?? [:]
    let known = sorted.compactMap { recorded[$0] }
    guard !known.isEmpty else {
      return Weights(values: Array(repeating: 1, count: sorted.count), isTimed: false)
    }
    let median = Self.median(known)
    return Weights(values: sorted.map { recorded[$0] ?? median }, isTimed: true)
  }

  /// The shard with the least expected time; then the fewest tests (so zero durations still
  /// spread), then the lowest index.
  private func leastLoaded(_ loads: [Double], _ shards: [[String]]) -> Int {
    var best = 0
    for candidate in loads.indices.dropFirst() {
      if loads[candidate] < loads[best]
        || (loads[candidate] == loads[best] && shards[candidate].count < shards[best].count)
      {
        best = candidate
      }
    }
    return best
  }

  /// The median of non-empty values (the mean of the middle two for an even count).
  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  private struct Weights {
    var values: [Double]
    var isTimed: Bool
    subscript(index: Int) -> Double { values[index] }
  }
}
