import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Stages one process's images and turns them into its archive: each stored image is encoded on
/// the background pool into the staging folder, each unchanged one is only recorded, and when
/// the run ends the folder becomes one archive (or, when nothing was stored, a run record).
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

  /// What `finish` hands back: the records and where they were staged, if anywhere.
  struct Finished {
    /// The images of the run.
    var records: Records
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
  private let lock = NSLock()
  private var state = State()
  private let pool = EncodingPool()
  /// Stores that passed the checks in `reserve` but have not handed their job to the pool yet;
  /// `finish` waits for them so an accepted image is never left out of the archive.
  private let submissions = DispatchGroup()

  /// Creates a stager writing into the environment's output folder under `runName`.
  init(environment: ImageTestEnvironment, runName: String) {
    self.environment = environment
    self.runName = runName
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
  ///   - record: Makes the image's manifest entry from its PNG bytes and pixel digest.
  ///   - runningManifest: The manifest a new staging folder starts with.
  /// - Throws: As `ImageCoordinator.store`.
  func store(
    _ image: RGBAImage, at location: ReferenceLocation, owner: String,
    knownPixelSHA256: [UInt8]?,
    record: @escaping @Sendable (_ png: [UInt8], _ pixelSHA256: String) -> ArchiveManifest.Image,
    runningManifest: (Records) -> ArchiveManifest
  ) throws(ReferenceImageError) {
    let staging = try reserve(location, owner: owner, runningManifest: runningManifest)
    defer { submissions.leave() }
    pool.submit { [self] in
      self.encodeAndWrite(
        image, location: location, knownPixelSHA256: knownPixelSHA256, staging: staging,
        record: record)
    }
  }

  /// Records an image whose reference already holds its pixels; nothing is encoded or archived.
  /// - Throws: As `store`: a path recorded twice is an error however each was recorded.
  func recordUnchanged(
    _ record: ArchiveManifest.UnchangedImage, at location: ReferenceLocation,
    runningManifest: (Records) -> ArchiveManifest
  ) throws(ReferenceImageError) {
    _ = try reserve(location, owner: record.owner, runningManifest: runningManifest)
    defer { submissions.leave() }
    locked { $0.unchanged[location.relativePath] = record }
  }

  private func reserve(
    _ location: ReferenceLocation, owner: String, runningManifest: (Records) -> ArchiveManifest
  ) throws(ReferenceImageError) -> StagingFolder {
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
    let staging = try stagingFolder(
      packageRoot: location.packageRoot, runningManifest: runningManifest)
    state.storedBy[location.relativePath] = owner
    submissions.enter()
    return staging
  }

  /// The staging folder, created with a `running` manifest on first use (lock held).
  private func stagingFolder(
    packageRoot: URL, runningManifest: (Records) -> ArchiveManifest
  ) throws(ReferenceImageError) -> StagingFolder {
    if let staging = state.staging { return staging }
    let folder = environment.archiveFolder(packageRoot: packageRoot)
    let staging = try StagingFolder(archiveFolder: folder, runName: runName)
    state.archiveFolder = folder
    state.packageRoot = packageRoot
    state.staging = staging
    try staging.write(manifest: runningManifest(state.records))
    return staging
  }

  private func encodeAndWrite(
    _ image: RGBAImage, location: ReferenceLocation, knownPixelSHA256: [UInt8]?,
    staging: StagingFolder,
    record: (_ png: [UInt8], _ pixelSHA256: String) -> ArchiveManifest.Image
  ) {
    do {
      // The encoder hashes the pixels for the PNG's digest chunk, unless the assertion did
      // already; the manifest reuses that hash.
      let (png, digest) = try PNGEncoder().encodeWithDigest(
        image, knownPixelSHA256: knownPixelSHA256)
      try staging.write(png: png, relativePath: location.relativePath)
      let entry = record(png, digest.pixelSHA256)
      locked { $0.images[location.relativePath] = entry }
    } catch {
      let message = "error: ReferenceImages could not stage \(location.relativePath): \(error)"
      logToStandardError(message)
      locked { $0.writeFailures.append(message) }
    }
  }

  // MARK: Finishing

  /// Refuses every later store, then waits for the accepted ones to be encoded and written.
  /// - Returns: The run's images and staging folder; nil when called before.
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
    return locked {
      Finished(records: $0.records, staging: $0.staging, archiveFolder: $0.archiveFolder)
    }
  }

  /// Zips the staged images with `manifest` into the run's archive; a run that staged nothing
  /// gets a staging folder for its manifest alone.
  /// - Returns: The archive written, or nil when it could not be (the error is logged).
  func archive(_ manifest: ArchiveManifest, finished: Finished) -> URL? {
    let existing = finished.staging.flatMap { staging in
      finished.archiveFolder.map { (staging, $0) }
    }
    guard let (staging, archiveFolder) = existing ?? manifestOnlyStaging() else { return nil }
    let archive = archiveFolder.appendingPathComponent("\(runName).zip")
    do {
      try staging.archive(manifest: manifest, to: archive)
      locked { $0.archive = archive }
      removeOldRuns(in: archiveFolder)
      logToStandardError(
        "ReferenceImages: wrote \(manifest.images.count) images (mode \(environment.mode))"
          + unchangedNote(manifest) + " to " + archive.path)
      if let line = landAllLine(manifest, archive: archive) { logToStandardError(line) }
      return archive
    } catch {
      logToStandardError(
        "error: ReferenceImages could not write the archive: \(error); the images stay in "
          + "\(staging.url.path), which merge-refs accepts as a source")
      return nil
    }
  }

  /// A process that made image assertions but stored nothing (a passing verify run) leaves its
  /// manifest as a small run record beside the archives: `merge-refs` then knows that this run
  /// passed where an earlier run failed, and lands nothing of the earlier run for those paths.
  /// - Parameter packageRoot: The package of the run's first assertion; nil writes nothing.
  func writeRunRecord(_ manifest: ArchiveManifest, packageRoot: URL?) {
    guard let packageRoot, !(manifest.referenceUses ?? []).isEmpty else { return }
    let folder = environment.archiveFolder(packageRoot: packageRoot)
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
  /// be stale. Other modes' archives are merged as they are (the plugin, `merge-refs`).
  private func landAllLine(_ manifest: ArchiveManifest, archive: URL) -> String? {
    let kept = manifest.images.count { $0.failedComparison != nil }
    guard manifest.mode == .verify, kept > 1, let root = locked({ $0.packageRoot }) else {
      return nil
    }
    let rootPath = root.standardizedFileURL.path + "/"
    let path = archive.standardizedFileURL.path
    let word = path.hasPrefix(rootPath) ? String(path.dropFirst(rootPath.count)) : path
    return "ReferenceImages: \(kept) failed comparisons kept their renders; to make them all "
      + "references, run this in the package root once the tests have finished: "
      + ShellWord.line(["swift", "run", "merge-refs", word, "."])
  }

  /// ", and recorded N unchanged", or nothing.
  private func unchangedNote(_ manifest: ArchiveManifest) -> String {
    guard let count = manifest.unchangedImages?.count else { return "" }
    return " and recorded \(count) unchanged (their references hold the same pixels)"
  }

  /// The staging folder of a run that stored no image, for its manifest-only archive: the
  /// runner always sets `IMAGE_GENERATION_OUTPUT`, so the package root is a fallback only.
  private func manifestOnlyStaging() -> (StagingFolder, URL)? {
    let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let folder = environment.archiveFolder(packageRoot: root)
    guard let staging = try? StagingFolder(archiveFolder: folder, runName: runName) else {
      logToStandardError(
        "error: ReferenceImages could not create a staging folder in \(folder.path)")
      return nil
    }
    return (staging, folder)
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
