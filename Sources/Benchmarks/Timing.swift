/// The samples of one measured operation; figures are medians because a shared two-core machine
/// has outliers (another build, a page-cache miss) that a mean would smear into every result.
struct Timing {
  /// Every repetition after the warm-up, in seconds.
  let samples: [Double]

  var median: Double {
    let sorted = samples.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  var fastest: Double { samples.min() ?? 0 }
  var slowest: Double { samples.max() ?? 0 }

  /// Runs `body` `warmUps` times unmeasured (page faults, lazily bound symbols, cold caches),
  /// then `repetitions` times on the monotonic `ContinuousClock`.
  static func measure(
    repetitions: Int, warmUps: Int = 1, _ body: () throws -> Void
  ) rethrows -> Timing {
    for _ in 0..<warmUps { try body() }
    let clock = ContinuousClock()
    var samples: [Double] = []
    for _ in 0..<max(repetitions, 1) {
      let start = clock.now
      try body()
      samples.append(seconds(clock.now - start))
    }
    return Timing(samples: samples)
  }

  static func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) * 1e-18
  }
}

/// Keeps a result alive so the optimiser cannot drop the work that produced it.
@_optimize(none)
func blackHole<T>(_ value: T) {}
