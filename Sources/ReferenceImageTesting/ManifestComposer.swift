import Foundation
import ReferenceContracts

/// Composes a process's manifest from its parts: the run's identity and settings, the ledger's
/// record of what ran and was verified, and the stager's images. The stager holds one, and asks
/// it for the manifest a new staging folder starts with and for the finished one; the parts it
/// reads never call back.
struct ManifestComposer: Sendable {
  /// The process's own id (`ArchiveManifest.runID`).
  let runID: String
  /// The run this process belongs to (`RunIdentity`): one `swift test` invocation.
  let run: String
  /// When the process's run started.
  let startedAt: Date
  /// The settings read from the environment.
  let environment: ImageTestEnvironment
  /// What ran and what was verified.
  let ledger: TestRunLedger

  /// The manifest of the run so far. Without a `completion` the run has finished, and how is
  /// read from the write failures.
  func manifest(_ records: ImageStager.Records, completion: ArchiveManifest.Completion?)
    -> ArchiveManifest
  {
    let ledger = ledger.snapshot()
    let finished = completion == nil
    return ArchiveManifest(
      toolVersion: referenceImagesVersion, runID: runID, run: run, worker: .current(),
      mode: environment.mode.name, startedAt: startedAt, endedAt: finished ? Date() : nil,
      completion: completion ?? (records.writeFailures.isEmpty ? .finished : .failed),
      tests: ledger.tests, images: records.images,
      unchangedImages: records.unchanged.isEmpty ? nil : records.unchanged,
      verifiedReferences: ledger.verified,
      referenceUses: ledger.uses.isEmpty ? nil : ledger.uses,
      testDurations: ledger.durations.isEmpty ? nil : ledger.durations,
      skippedTests: ledger.skipped, failedTests: ledger.failed.isEmpty ? nil : ledger.failed,
      coverage: .init(
        scope: ledger.coverage ?? .unobserved,
        arguments: Array(CommandLine.arguments.dropFirst()),
        swiftTestingTestsNotRun: ledger.coverage == .wholeBundle
          && SwiftTestingContent.inThisExecutable == true ? true : nil),
      replicas: environment.replicas,
      variants: ledger.variants.isEmpty ? nil : ledger.variants)
  }
}
