import Foundation
import ReferenceImageCore

/// Every shard's tests, decided once from the listing and the timings: the same inputs give
/// the same plan on every machine of a CI matrix.
public struct ShardPlan: Sendable, Equatable {
  /// The tests of each shard, sorted by name; shard `i` is `shards[i]`. With `replicas` R,
  /// every test is in R different shards.
  public var shards: [[String]]
  /// The seconds each shard is expected to take (its tests' durations; a count of tests when
  /// there were no timings). Together R times the listing's.
  public var expectedSeconds: [Double]
  /// Whether the plan was balanced by recorded durations rather than by count.
  public var isTimed: Bool
  /// SHA-256 of the sorted, de-duplicated listing, one name a line: shards of one plan agree
  /// on it.
  public var listingSHA256: String
  /// How many different shards run each test: 1, or 2 to catch a render that differs from one
  /// run to the next.
  public var replicas = 1

  /// The number of shards.
  public var count: Int { shards.count }

  /// The largest shard's expected time over the mean: 1 is perfect balance.
  public var balance: Double { Self.balance(expectedSeconds) }

  /// The largest of `loads` over their mean; 1 when they are all zero.
  public static func balance(_ loads: [Double]) -> Double {
    let total = loads.reduce(0, +)
    guard total > 0, !loads.isEmpty else { return 1 }
    return (loads.max() ?? 0) / (total / Double(loads.count))
  }

  /// The SHA-256 of a listing as `listingSHA256` defines it.
  public static func listingDigest(_ sortedTests: [String]) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(sortedTests.reduce(0) { $0 + $1.utf8.count + 1 })
    for test in sortedTests {
      bytes.append(contentsOf: test.utf8)
      bytes.append(0x0A)
    }
    return SHA256.hex(bytes)
  }
}
