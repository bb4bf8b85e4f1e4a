import Foundation
import ReferenceContracts

/// One copy of each value that many sources' manifests hold alike: the tool's version, the
/// run's name, the worker's system and CI variables, the suites' files.
///
/// Rule: every manifest read goes through `manifest(_:)`, so an archive keeps only what is its
/// own (its run id, its tests' names) and shares the rest with the archives read before it.
/// Cost: one hash-set lookup a value; the scanners of every core share one, behind a lock.
final class SharedValues: @unchecked Sendable {
  private let lock = NSLock()
  private var strings: Set<String> = []
  private var tables: Set<[String: String]> = []
  private var suiteTables: Set<[String: Set<String>]> = []

  /// The manifest, its values shared with the manifests read before it. Its tests' names are
  /// shared within it: the list of tests, their durations and the coverage's arguments name
  /// the same tests, and no other archive runs them.
  func manifest(_ manifest: ArchiveManifest) -> ArchiveManifest {
    var manifest = manifest
    lock.withLock {
      manifest.toolVersion = Self.shared(manifest.toolVersion, in: &strings)
      manifest.run = manifest.run.map { Self.shared($0, in: &strings) }
      manifest.worker.host = Self.shared(manifest.worker.host, in: &strings)
      manifest.worker.os = Self.shared(manifest.worker.os, in: &strings)
      manifest.worker.swiftVersion = Self.shared(manifest.worker.swiftVersion, in: &strings)
      manifest.worker.ci = Self.shared(manifest.worker.ci, in: &tables)
    }
    shareTestNames(&manifest)
    return manifest
  }

  /// The table of suites' files, shared with an equal one read before it.
  func suiteFiles(_ table: [String: Set<String>]) -> [String: Set<String>] {
    lock.withLock { Self.shared(table, in: &suiteTables) }
  }

  private func shareTestNames(_ manifest: inout ArchiveManifest) {
    var names: Set<String> = []
    manifest.tests = manifest.tests.map { Self.shared($0, in: &names) }
    manifest.testDurations = manifest.testDurations?.map {
      var duration = $0
      duration.test = Self.shared(duration.test, in: &names)
      return duration
    }
    manifest.skippedTests = manifest.skippedTests?.map { Self.shared($0, in: &names) }
    if let coverage = manifest.coverage {
      // The arguments of a process asked to run its tests are mostly its list of tests.
      manifest.coverage?.arguments =
        coverage.arguments == manifest.tests
        ? manifest.tests : coverage.arguments.map { Self.shared($0, in: &names) }
    }
  }

  /// The value, or an equal one met before (sharing its storage).
  private static func shared<Value: Hashable>(_ value: Value, in seen: inout Set<Value>) -> Value {
    seen.insert(value).memberAfterInsert
  }
}
