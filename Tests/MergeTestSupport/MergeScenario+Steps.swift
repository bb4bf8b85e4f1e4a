import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// Scenarios that more than one test target states: a test of the verdict and a test of what
/// merge-refs prints of the same merge start from the same lines.
extension MergeScenario {
  /// A package with references `old-a`, `old-b` and `orphan` (seeds 1, 2, 3), and a finished
  /// run, `run.zip`, that adds `new-a` and `new-b` (seeds 10, 11) and updates `old-a` and
  /// `old-b` (seeds 12, 13).
  public func updateOfTwoReferencesBesideAnOrphan() throws {
    try reference("old-a", .seed(1))
    try reference("old-b", .seed(2))
    try reference("orphan", .seed(3))
    try archive(
      "run.zip", ["new-a": .seed(10), "new-b": .seed(11), "old-a": .seed(12), "old-b": .seed(13)])
  }

  /// With the variants declared (`declareVariants()`): a package holding `c` and its macOS
  /// file (seeds 1, 5), a base run rendering `a` and `b` (seed 1), a `linux-arm64` run
  /// rendering `a` otherwise (seed 2) and `b` as the base does, and a `macos` run rendering `c`
  /// as the base does. Per variant: base 2 added; linux-arm64 1 added, 1 equal to the fallback;
  /// macos 1 redundant.
  public func changesOfThreeVariants() throws {
    try reference(variantName("c", "macos"), .seed(5))
    try reference("c", .seed(1))
    try archive("base.zip", ["a": .seed(1), "b": .seed(1)])
    try archive(
      "arm.zip",
      [variantName("a", "linux-arm64"): .seed(2), variantName("b", "linux-arm64"): .seed(1)])
    try archive("mac.zip", [variantName("c", "macos"): .seed(1)])
  }

  /// Runs of the same tests, `run-0.zip`, `run-1.zip`…, one a day from day 2, by workers of
  /// pids 200, 201…, each with `replicas` (`IMAGE_GENERATION_REPLICAS`): `flaky` renders with
  /// the seed given per run, `steady` the same pixels (seed 99) in all of them.
  public func replicatedRuns(flakySeeds: [Int], replicas: Int? = 2) throws {
    for (run, seed) in flakySeeds.enumerated() {
      try archive(
        "run-\(run).zip", ["flaky": .seed(seed), "steady": .seed(99)], pid: Int32(200 + run),
        generatedAt: day(2 + run)
      ) { $0.replicas = replicas }
    }
  }

  /// The renders of `verifyRunOfFailedComparisons`: `new-a` has no reference yet, `old-a` and
  /// `old-b` differ from theirs.
  public static let verifyRenders: KeyValuePairs<String, Pixels> = [
    "new-a": .seed(10), "old-a": .seed(11), "old-b": .seed(12),
  ]

  /// A package with references `old-a` (seed 1) and `old-b` (seed 2), and a verify run's
  /// archive, `reference-verify/run.zip`, keeping the renders of three failed comparisons
  /// (`verifyRenders`), each recorded with the reference it was compared with, as the
  /// pull-request loop leaves them.
  /// - Returns: The archive.
  @discardableResult
  public func verifyRunOfFailedComparisons() throws -> URL {
    try reference("old-a", .seed(1))
    try reference("old-b", .seed(2))
    let compared: [String: Pixels] = ["old-a": .seed(1), "old-b": .seed(2)]
    var failed: [String: ArchiveManifest.FailedComparison] = [:]
    for (name, _) in Self.verifyRenders {
      let reference = try compared[name].map { SHA256Digest(of: try $0.image().pixels) }
      failed[path(name)] = .init(
        referencePixelSHA256: reference, comparison: "exact",
        verdict: reference == nil ? "no reference" : "differs",
        differingPixels: reference == nil ? nil : 96, totalPixels: 96,
        file: "Tests/ChartTests/BarChartTests.swift", line: 12)
    }
    return try archive("reference-verify/run.zip", Self.verifyRenders) {
      $0.mode = "verify"
      $0.failedComparisons = failed
      $0.coverage = .init(scope: .selectedTests, arguments: [])
    }
  }
}
