import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// Stages one process's images and turns them into its archive: each stored image is encoded on
/// the background pool into the staging folder, each unchanged one is only recorded, and when
/// the run ends it carries out the `RunEnding` decided from the finished manifest (an archive,
/// a run record, or nothing). It writes the manifests itself (`ManifestComposer`), so nothing
/// it is handed calls back into the coordinator.
///
/// Thread-safe: Swift Testing runs tests concurrently.
final class ImageStager: @unchecked Sendable {
  /// The images of the run, for the manifest.
  struct Records {
    /// The images stored and encoded, sorted by path.
    var images: [ArchiveManifest.Image]
    /// The images whose references hold their pixels, sorted by path.
    var unchanged: [ArchiveManifest.UnchangedImage]
    /// The messages of images that could not be staged.
    var writeFailures: [String]
  }

  /// What `finish` hands back: the finished manifest and where its images were staged, if
  /// anywhere.
  struct Finished {
    /// The run's manifest, with every image written.
    var manifest: ArchiveManifest
    /// The staging folder, when an image was stored.
    var staging: StagingFolder?
    /// The folder the archive goes to, when an image was stored.
    var archiveFolder: URL?
  }

  private struct State {
    var staging: StagingFolder?
    var archiveFolder: URL?
    /// The package of the first stored image: failure messages' commands start there.
    var packageRoot: URL?
    var storedBy: [String: String] = [:]
    var images: [String: ArchiveManifest.Image] = [:]
    var unchanged: [String: ArchiveManifest.UnchangedImage] = [:]
    var writeFailures: [String] = []
    var lossReported = false
    var finished = false
    var archive: URL?

    var records: Records {
      Records(
        images: images.values.sorted { $0.path < $1.path },
        unchanged: unchanged.values.sorted { $0.path < $1.path }, writeFailures: writeFailures)
    }
  }

  private let environment: ImageTestEnvironment
  /// The run's file name stem: the archive, run record and staging folder are named after it.
  private let runName: String
  /// Writes the manifests: the one a staging folder starts with, and the finished one.
  private let composer: ManifestComposer
  private let lock = NSLock()
  private var state = State()
  private let pool = EncodingPool()
  /// Stores that passed the checks in `reserve` but have not handed their job to the pool yet;
  /// `finish` waits for them so an accepted image is never left out of the archive.
  private let submissions = DispatchGroup()

  /// Creates a stager writing into the environment's output folder under `runName`.
  init(environment: ImageTestEnvironment, runName: String, composer: ManifestComposer) {
    self.environment = environment
    self.runName = runName
    self.composer = composer
  }

  /// Where this run's archive will be written for a package.
  func archiveLocation(packageRoot: URL) -> URL {
    let folder = locked { $0.archiveFolder } ?? environment.archiveFolder(packageRoot: packageRoot)
    return folder.appendingPathComponent("\(runName).zip")
  }

  // MARK: Storing

  /// Stages an image: the caller pays for the copy of its pixels in `image`; encoding and
  /// writing happen on the background pool.
  /// - Parameters:
  ///   - owner: The test, or parameterized test case, that stores it.
  ///   - failedComparison: For the render of a failed comparison: what it was compared with.
  ///   - comparison: The comparison the assertion uses, for the manifest.
  ///   - knownPixelSHA256: The pixels' SHA-256, when the assertion computed it already.
  /// - Throws: As `ImageCoordinator.store`.
  func store(
    _ image: RGBAImage, at location: ReferenceLocation, owner: ImageOwner,
    failedComparison: ArchiveManifest.FailedComparison?, comparison: ComparisonRecord?,
    knownPixelSHA256: [UInt8]?
  ) throws(ReferenceImageError) {
    let staging = try reserve(location, owner: owner.description)
    defer { submissions.leave() }
    pool.submit { [self] in
      self.encodeAndWrite(
        image, location: location, knownPixelSHA256: knownPixelSHA256, staging: staging,
        entry: { png, pixelSHA256 in
          ArchiveManifest.Image(
            path: location.relativePath, test: owner.test, width: image.width,
            height: image.height, byteCount: png.count, pngSHA256: SHA256Digest(of: png),
            pixelSHA256: pixelSHA256, failedComparison: failedComparison, comparison: comparison,
            testCase: owner.testCase)
        })
    }
  }

  /// Records an image whose reference already holds its pixels; nothing is encoded or archived.
  /// - Throws: As `store`: a path recorded twice is an error however each was recorded.
  func recordUnchanged(_ record: ArchiveManifest.UnchangedImage, at location: ReferenceLocation)
    throws(ReferenceImageError)
  {
    _ = try reserve(location, owner: record.owner)
    defer { submissions.leave() }
    locked { $0.unchanged[location.relativePath] = record }
  }

  private func reserve(_ location: ReferenceLocation, owner: String)
    throws(ReferenceImageError) -> StagingFolder
  {
    lock.lock()
    defer { lock.unlock() }
    if let first = state.storedBy[location.relativePath] {
      throw .duplicateImage(path: location.relativePath, firstTest: first, secondTest: owner)
    }
    if state.finished {
      throw .writeFailed(
        path: location.relativePath, reason: "the run's archive was already written")
    }
    // A background write failed (a full disk, say): every later store fails loudly, so the
    // loss is seen by a test and not only in the log.
    if let failure = state.writeFailures.first {
      throw .writeFailed(
        path: location.relativePath,
        reason: "an earlier image could not be staged, so this run's archive is incomplete "
          + "(\(failure))")
    }
    let staging = try stagingFolder(packageRoot: location.packageRoot)
    state.storedBy[location.relativePath] = owner
    submissions.enter()
    return staging
  }

  /// The staging folder, created with a `running` manifest on first use (lock held).
  private func stagingFolder(packageRoot: URL) throws(ReferenceImageError) -> StagingFolder {
    if let staging = state.staging { return staging }
    let folder = environment.archiveFolder(packageRoot: packageRoot)
    let staging = try StagingFolder(archiveFolder: folder, runName: runName)
    state.archiveFolder = folder
    state.packageRoot = packageRoot
    state.staging = staging
    try staging.write(manifest: composer.manifest(state.records, completion: .running))
    return staging
  }

  private func encodeAndWrite(
    _ image: RGBAImage, location: ReferenceLocation, knownPixelSHA256: [UInt8]?,
    staging: StagingFolder,
    entry: (_ png: [UInt8], _ pixelSHA256: SHA256Digest) -> ArchiveManifest.Image
  ) {
    do {
      // The encoder hashes the pixels for the PNG's digest chunk, unless the assertion did
      // already; the manifest reuses that hash.
      let (png, digest) = try PNGEncoder().encodeWithDigest(
        image, knownPixelSHA256: knownPixelSHA256)
      try staging.write(png: png, relativePath: location.relativePath)
      let record = entry(png, digest.pixelSHA256)
      locked { $0.images[location.relativePath] = record }
    } catch {
      let message = "error: ReferenceImages could not stage \(location.relativePath): \(error)"
      logToStandardError(message)
      locked { $0.writeFailures.append(message) }
    }
  }

  // MARK: Finishing

  /// Refuses every later store, then waits for the accepted ones to be encoded and written.
  /// - Returns: The finished manifest and the staging folder; nil when called before.
  func finish() -> Finished? {
    // Refuse new stores first, then wait for the accepted ones to reach the pool and finish;
    // draining before refusing let a store slip in between and lose its image.
    let isFirstCall = locked { state -> Bool in
      defer { state.finished = true }
      return !state.finished
    }
    guard isFirstCall else { return nil }
    submissions.wait()
    pool.drain()
    let (records, staging, archiveFolder) = locked { ($0.records, $0.staging, $0.archiveFolder) }
    return Finished(
      manifest: composer.manifest(records, completion: nil), staging: staging,
      archiveFolder: archiveFolder)
  }

  /// Ends the run as decided: the last step, which decides nothing.
  /// - Returns: The archive written, or nil.
  func end(_ ending: RunEnding, manifest: ArchiveManifest) -> URL? {
    switch ending {
    case .archive(let staging, let folder):
      return archive(manifest, staging: staging, folder: folder)
    case .runRecord(let folder, let staging):
      staging?.remove()
      writeRunRecord(manifest, in: folder)
      return nil
    case .nothing(let staging):
      staging?.remove()
      return nil
    }
  }

  /// Zips the staged images with `manifest` into the run's archive in `folder`; without a
  /// staging folder, a new one holds the manifest alone.
  /// - Returns: The archive written, or nil when it could not be (the error is logged).
  private func archive(_ manifest: ArchiveManifest, staging: StagingFolder?, folder: URL) -> URL? {
    guard let staging = staging ?? manifestOnlyStaging(in: folder) else { return nil }
    let archive = folder.appendingPathComponent("\(runName).zip")
    do {
      try staging.archive(manifest: manifest, to: archive)
      locked { $0.archive = archive }
      removeOldRuns(in: folder)
      logToStandardError(
        "ReferenceImages: wrote \(manifest.images.count) "
          + (manifest.images.count == 1 ? "image" : "images") + " (mode \(environment.mode))"
          + unchangedNote(manifest) + " to " + archive.path)
      if let line = landAllLine(manifest, archive: archive) ?? landGeneratedLine(manifest, folder) {
        logToStandardError(line)
      }
      return archive
    } catch {
      logToStandardError(
        "error: ReferenceImages could not write the archive: \(error); the images stay in "
          + "\(staging.url.path), which merge-refs accepts as a source")
      return nil
    }
  }

  /// Writes `manifest` as the run's record in `folder`, beside the archives (`RunEnding`).
  private func writeRunRecord(_ manifest: ArchiveManifest, in folder: URL) {
    let record = folder.appendingPathComponent(runName + GenerationContract.runRecordSuffix)
    do {
      try FileSystem.writeAtomically(Array(try manifest.encoded()), to: record)
      removeOldRuns(in: folder)
    } catch {
      logToStandardError(
        "warning: ReferenceImages could not write the run record \(record.path): \(error)")
    }
  }

  /// Keeps the default output folder bounded: the runs before the newest few are removed. A
  /// folder the user named (`IMAGE_GENERATION_OUTPUT`) is theirs, and never pruned.
  private func removeOldRuns(in folder: URL) {
    guard environment.outputFolder == nil else { return }
    OutputFolderRuns.removeOldRuns(
      in: folder, keeping: GenerationContract.runsKeptInDefaultFolder, sparing: runName)
  }

  /// After a verify run whose comparisons failed, the one command that makes every render this
  /// process kept a reference, beside each failure's own: a first run with many new images
  /// needs it. It names this run's archive, never the folder, whose earlier runs' renders may
  /// be stale. Other modes' archives are merged as they are (the plugin, `merge-refs`), and an
  /// undeclared platform's cannot be.
  private func landAllLine(_ manifest: ArchiveManifest, archive: URL) -> String? {
    let kept = manifest.images.count { $0.failedComparison != nil }
    // An undeclared platform's renders can never land (merge-refs refuses its archive).
    let undeclared = (manifest.variants ?? []).contains {
      RunningVariant.undeclaredPlatform(recorded: $0) != nil
    }
    guard manifest.mode == .verify, kept > 1, !undeclared, let root = locked({ $0.packageRoot })
    else { return nil }
    let word = archive.pathRelative(toPackageRoot: root)
    return "ReferenceImages: \(kept) failed comparisons kept their renders; to make them all "
      + "references, run this in the package root once the tests have finished: "
      + ShellWord.line(["swift", "run", "merge-refs", word, "."])
  }

  /// For a generation run into the default folder, the command that lands its images with the
  /// other processes' of the same `swift test` (merge-refs reads the folder's archives); nil
  /// when the folder was chosen (the plugin, `reference-shards` and CI land what they chose).
  private func landGeneratedLine(_ manifest: ArchiveManifest, _ folder: URL) -> String? {
    guard environment.mode != .verify, environment.outputFolder == nil, !manifest.images.isEmpty,
      let root = locked({ $0.packageRoot })
    else { return nil }
    return "ReferenceImages: to land them, run this in the package root once the tests have "
      + "finished: "
      + ShellWord.line([
        "swift", "run", "merge-refs", folder.pathRelative(toPackageRoot: root), ".",
      ])
  }

  /// ", and recorded N unchanged", or nothing.
  private func unchangedNote(_ manifest: ArchiveManifest) -> String {
    guard let count = manifest.unchangedImages?.count else { return "" }
    return " and recorded \(count) unchanged (their references hold the same pixels)"
  }

  /// The staging folder of a run that stored no image, for its manifest-only archive.
  private func manifestOnlyStaging(in folder: URL) -> StagingFolder? {
    guard let staging = try? StagingFolder(archiveFolder: folder, runName: runName) else {
      logToStandardError(
        "error: ReferenceImages could not create a staging folder in \(folder.path)")
      return nil
    }
    return staging
  }

  // MARK: Losses

  /// The messages of images that could not be staged; empty when all were written.
  var writeFailures: [String] { locked { $0.writeFailures } }

  /// The write failures not reported yet, once: later calls get none.
  func takeUnreportedFailures() -> [String] {
    locked { state -> [String] in
      defer { state.lossReported = true }
      return state.lossReported ? [] : state.writeFailures
    }
  }

  /// The archive written by `archive`, if any.
  var archiveURL: URL? { locked { $0.archive } }

  private func locked<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}

/// Writes one line to standard error: the test log, where `swift test` users read it.
func logToStandardError(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}
