import Foundation
import ReferenceContracts

/// How a process's run ends: the one decision between an archive, a run record and nothing,
/// made from the finished manifest once every image is written. `ImageStager.end` carries it
/// out; nothing there decides again.
enum RunEnding: Equatable {
  /// The run's archive, `<run name>.zip` in `folder`: the staging folder zipped with the
  /// manifest, or, without one, a new staging folder holding the manifest alone.
  case archive(staging: StagingFolder?, folder: URL)
  /// The manifest as the run record `<run name>.record.json` in `folder`; the staging folder,
  /// if any, holds no image and is removed.
  case runRecord(folder: URL, discarding: StagingFolder?)
  /// Nothing is written; the staging folder, if any, holds no image and is removed.
  case nothing(discarding: StagingFolder?)

  /// Decides how a run ends.
  /// - Parameters:
  ///   - manifest: The finished manifest.
  ///   - staging: The staging folder, when an image was staged.
  ///   - archiveFolder: The folder the archive goes to, when an image was staged.
  ///   - environment: The settings: the output folder, and whether a shard runs.
  ///   - assertionsPackage: The package of the run's first assertion (`TestRunLedger`).
  ///   - currentDirectory: The package a manifest-only archive is written for: the runner
  ///     always sets `IMAGE_GENERATION_OUTPUT`, so this is a fallback only.
  init(
    manifest: ArchiveManifest, staging: StagingFolder?, archiveFolder: URL?,
    environment: ImageTestEnvironment, assertionsPackage: URL?,
    currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
  ) {
    let recorded = manifest.images.count + (manifest.unchangedImages?.count ?? 0)
    // Under `reference-shards run`, a process that stored no image still writes its manifest:
    // it is the proof that its tests ran.
    let ranTests =
      !manifest.tests.isEmpty || !(manifest.testDurations ?? []).isEmpty
      || !(manifest.skippedTests ?? []).isEmpty
    let provesTests = environment.shard != nil && ranTests
    if recorded > 0 || provesTests {
      if let staging, let archiveFolder {
        self = .archive(staging: staging, folder: archiveFolder)
      } else {
        self = .archive(
          staging: nil, folder: environment.archiveFolder(packageRoot: currentDirectory))
      }
    } else if let assertionsPackage, !(manifest.referenceUses ?? []).isEmpty {
      // A process that made image assertions but stored nothing (a passing verify run) leaves
      // its manifest beside the archives: `merge-refs` then knows that this run passed where
      // an earlier run failed, and lands nothing of the earlier run for those paths.
      self = .runRecord(
        folder: environment.archiveFolder(packageRoot: assertionsPackage), discarding: staging)
    } else {
      self = .nothing(discarding: staging)
    }
  }
}
