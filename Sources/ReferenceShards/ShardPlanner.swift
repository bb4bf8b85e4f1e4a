/// Assigns tests (not classes) to shards: longest first onto the least-loaded shard, a test
/// without a recorded duration counted as the median of those with one, and by count when
/// there are no durations. Ties go by test name and then shard index, so the plan is a pure
/// function of its inputs. With replicas R, each test goes onto the R least-loaded shards at
/// once, so its runs are on R different machines and a render that differs between them shows.
public struct ShardPlanner: Sendable {
  /// The durations to balance by; nil or empty to balance by count.
  public var timings: TestTimings?

  /// Creates a planner.
  public init(timings: TestTimings? = nil) {
    self.timings = timings
  }

  /// Plans `count` shards, each test on one of them.
  /// - Parameters:
  ///   - tests: The listing (any order; repeated names count once).
  ///   - count: The number of shards, 1 or more.
  /// - Returns: The plan.
  public func plan(tests: [String], count: Int) -> ShardPlan {
    place(Array(Set(tests)).sorted(), count: max(count, 1), replicas: 1)
  }

  /// Plans `count` shards, each test on `replicas` different ones.
  /// - Parameters:
  ///   - tests: The listing (any order; repeated names count once).
  ///   - count: The number of shards, 1 or more.
  ///   - replicas: How many different shards run each test, from 1 to `count`.
  /// - Returns: The plan.
  /// - Throws: `ShardError.badReplicas` when `replicas` is below 1 or above `count`: two
  ///   replicas on one shard would be one machine rendering twice, which proves nothing.
  public func plan(tests: [String], count: Int, replicas: Int) throws(ShardError) -> ShardPlan {
    guard (1...max(count, 1)).contains(replicas) else {
      throw .badReplicas(replicas: replicas, count: count)
    }
    return place(Array(Set(tests)).sorted(), count: max(count, 1), replicas: replicas)
  }

  /// Places the sorted, unique tests, longest first, each onto the `replicas` least-loaded
  /// shards; `replicas` is within 1...`count`.
  private func place(_ sorted: [String], count: Int, replicas: Int) -> ShardPlan {
    let weights = self.weights(sorted)
    // Longest first; equal durations by name, so every machine orders them alike.
    let order = sorted.indices.sorted {
      weights[$0] != weights[$1] ? weights[$0] > weights[$1] : sorted[$0] < sorted[$1]
    }
    var shards = Array(repeating: [String](), count: count)
    var loads = Array(repeating: 0.0, count: count)
    for index in order {
      // All R targets are chosen before any is loaded, so they are R different shards.
      for target in leastLoaded(loads, shards, taking: replicas) {
        shards[target].append(sorted[index])
        loads[target] += weights[index]
      }
    }
    return ShardPlan(
      shards: shards.map { $0.sorted() }, expectedSeconds: loads,
      isTimed: weights.isTimed, listingSHA256: ShardPlan.listingDigest(sorted),
      replicas: replicas)
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

  /// The `taking` shards with the least expected time; then the fewest tests (so zero
  /// durations still spread), then the lowest index.
  private func leastLoaded(_ loads: [Double], _ shards: [[String]], taking: Int) -> [Int] {
    let ranked = loads.indices.sorted {
      (loads[$0], shards[$0].count, $0) < (loads[$1], shards[$1].count, $1)
    }
    return Array(ranked.prefix(taking))
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
