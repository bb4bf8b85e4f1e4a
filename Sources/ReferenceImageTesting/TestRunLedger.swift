import Dispatch
import Foundation
import ReferenceContracts

/// What one test process ran and verified: the tests that started, their durations and skips,
/// the coverage of the run, the reference paths compared against, and every assertion's use of a
/// reference with each path's owner. The manifest's record of the run, apart from its images.
///
/// Thread-safe: Swift Testing runs tests concurrently.
final class TestRunLedger: @unchecked Sendable {
  /// The run's record for the manifest, taken at one moment.
  struct Snapshot {
    /// The tests that started, in order, each once.
    var tests: [String]
    /// The reference paths compared against, sorted.
    var verified: [String]
    /// Every assertion's use of a reference, in order.
    var uses: [ArchiveManifest.ReferenceUse]
    /// The XCTest tests that finished, with their durations.
    var durations: [ArchiveManifest.TestDuration]
    /// The XCTest tests that were skipped.
    var skipped: [String]
    /// The XCTest tests that failed, sorted by name.
    var failed: [ArchiveManifest.FailedTest]
    /// Whether XCTest ran its whole bundle or selected tests; nil when no root suite started.
    var coverage: ArchiveManifest.Coverage.Scope?
    /// The variants the assertions ran as, sorted; empty without a variant declaration.
    var variants: [String]
  }

  private struct State {
    var tests: [String] = []
    var knownTests: Set<String> = []
    var currentXCTest: String?
    /// The running XCTest test's `swift test list` name, for the `--filter` a message prints.
    var currentXCTestListing: String?
    /// When the running XCTest test started (monotonic nanoseconds), by its listing name.
    var xcTestStarts: [String: UInt64] = [:]
    var durations: [ArchiveManifest.TestDuration] = []
    var skipped: [String] = []
    /// The failed XCTest tests, with the file of each one's first failure when XCTest named it.
    var failed: [String: String?] = [:]
    /// Set when XCTest starts its root suite: "All tests", or "Selected tests" under a filter.
    var coverage: ArchiveManifest.Coverage.Scope?
    var verified: Set<String> = []
    var variants: Set<String> = []
    /// Every assertion's use of a reference, in order, and each path's first use: a second test
    /// using the same path is refused by name.
    var uses: [ArchiveManifest.ReferenceUse] = []
    var owners: [String: ArchiveManifest.ReferenceUse] = [:]
    /// The package root of the first assertion: where a run record goes.
    var packageRoot: URL?
    /// The comparisons that passed only within tolerance.
    var drift = ToleranceDrift()
  }

  private let lock = NSLock()
  private var state = State()

  /// Notes that a test started, for the manifest's list of tests.
  func testStarted(_ name: String, isXCTest: Bool) {
    locked {
      if isXCTest { $0.currentXCTest = name }
      if $0.knownTests.insert(name).inserted { $0.tests.append(name) }
    }
  }

  /// Notes that an XCTest test started, timing it by its `swift test list` name.
  func xcTestStarted(listingName: String) {
    let now = DispatchTime.now().uptimeNanoseconds
    locked {
      $0.xcTestStarts[listingName] = now
      $0.currentXCTestListing = listingName
    }
  }

  /// Notes that an XCTest test finished: its duration goes into the manifest.
  func xcTestFinished(listingName: String) {
    let now = DispatchTime.now().uptimeNanoseconds
    locked { state in
      guard let start = state.xcTestStarts.removeValue(forKey: listingName) else { return }
      let seconds = Double(now &- start) / 1e9
      state.durations.append(.init(test: listingName, seconds: seconds))
    }
  }

  /// Notes that an XCTest test was skipped: it ran, but verified nothing.
  func xcTestSkipped(listingName: String) {
    locked { $0.skipped.append(listingName) }
  }

  /// Notes that an XCTest test failed: it may have stopped before it stored its images.
  /// - Parameters:
  ///   - listingName: The test's `swift test list` name.
  ///   - file: The file name its failure was recorded in, if known; the first one known stays.
  func xcTestFailed(listingName: String, file: String?) {
    locked {
      if let known = $0.failed[listingName], known != nil { return }
      $0.failed[listingName] = .some(file)
    }
  }

  /// Notes XCTest's root suite: whether this process runs its whole bundle or selected tests.
  func xcTestRootSuiteStarted(runsWholeBundle: Bool) {
    locked { state in
      guard state.coverage == nil else { return }
      state.coverage = runsWholeBundle ? .wholeBundle : .selectedTests
    }
  }

  /// The XCTest test running now, if any.
  var currentXCTestName: String? { locked { $0.currentXCTest } }

  /// The XCTest test running now, by its `swift test list` name, if any.
  var currentXCTestListingName: String? { locked { $0.currentXCTestListing } }

  /// The package root of the first claimed reference, if any.
  var packageRoot: URL? { locked { $0.packageRoot } }

  /// Notes a comparison that passed only within tolerance, for the run's closing line.
  func noteToleratedPass(_ pass: ToleranceDrift.Pass) {
    locked { $0.drift.passes.append(pass) }
  }

  /// The comparisons that passed only within tolerance, so far.
  var drift: ToleranceDrift { locked { $0.drift } }

  /// Notes that a reference path was compared against.
  func noteVerified(_ path: String) {
    _ = locked { $0.verified.insert(path) }
  }

  /// Claims a reference path for one test's assertion; see `ImageCoordinator.claim`.
  /// - Throws: `ReferenceImageError.sharedReference` when another test used the path before.
  func claim(_ use: ArchiveManifest.ReferenceUse, packageRoot: URL) throws(ReferenceImageError) {
    lock.lock()
    defer { lock.unlock() }
    state.verified.insert(use.path)
    if state.packageRoot == nil { state.packageRoot = packageRoot }
    guard let owner = state.owners[use.path] else {
      state.owners[use.path] = use
      return
    }
    // Two cases of one parameterized test are two owners, as two tests are.
    guard owner.owner == use.owner else {
      throw .sharedReference(
        path: use.path, first: owner.place, second: use.place,
        casesOfOneTest: owner.test == use.test)
    }
  }

  /// Records the variant an assertion ran as (`RunningVariant.description`).
  func noteVariant(_ variant: String) {
    locked { _ = $0.variants.insert(variant) }
  }

  /// Records what came of an assertion.
  func recordUse(_ use: ArchiveManifest.ReferenceUse) {
    locked { $0.uses.append(use) }
  }

  /// The record so far.
  func snapshot() -> Snapshot {
    locked {
      Snapshot(
        tests: $0.tests, verified: $0.verified.sorted(), uses: $0.uses, durations: $0.durations,
        skipped: $0.skipped,
        failed: $0.failed.map { .init(test: $0.key, file: $0.value) }.sorted { $0.test < $1.test },
        coverage: $0.coverage,
        variants: $0.variants.sorted())
    }
  }

  private func locked<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}
