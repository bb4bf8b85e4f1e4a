import Foundation
import ReferenceArchive
import ReferenceImageCore

/// The per-process coordinator of image generation: it stages every stored image, encodes them
/// in the background, and turns the staging folder into one archive when the run ends.
///
/// It is registered as an XCTest observer when the test binary loads (see
/// `CReferenceImageRegistration`), or lazily on first use; nobody needs to create one. All
/// methods are thread-safe, because Swift Testing runs tests concurrently.
public final class ImageCoordinator: @unchecked Sendable {
  /// The process's coordinator.
  public static let shared = ImageCoordinator(environment: ImageTestEnvironment())

  /// The settings read from the environment when the process started.
  public let environment: ImageTestEnvironment

  private let lock = NSLock()
  private var state: State
  private let pool = EncodingPool()
  /// Stores that passed the checks in `reserve` but have not handed their job to the pool yet;
  /// `finishRun` waits for them so an accepted image is never left out of the archive.
  private let submissions = DispatchGroup()

  private struct State {
    var startedAt = Date()
    var runID = UUID().uuidString.lowercased()
    var staging: StagingFolder?
    var archiveFolder: URL?
    var storedBy: [String: String] = [:]
    var images: [String: ArchiveManifest.Image] = [:]
    var unchanged: [String: ArchiveManifest.UnchangedImage] = [:]
    var verified: Set<String> = []
    /// Every assertion's use of a reference, in order, and each path's first use: a second test
    /// using the same path is refused by name.
    var uses: [ArchiveManifest.ReferenceUse] = []
    var owners: [String: ArchiveManifest.ReferenceUse] = [:]
    var tests: [String] = []
    var knownTests: Set<String> = []
    var currentXCTest: String?
    /// The running XCTest test's `swift test list` name, for the `--filter` a message prints.
    var currentXCTestListing: String?
    /// When the running XCTest test started (monotonic nanoseconds), by its listing name.
    var xcTestStarts: [String: UInt64] = [:]
    var durations: [ArchiveManifest.TestDuration] = []
    var skipped: [String] = []
    /// Set when XCTest starts its root suite: "All tests", or "Selected tests" under a filter.
    var coverage: ArchiveManifest.Coverage.Scope?
    var writeFailures: [String] = []
    var lossReported = false
    var finished = false
    var archive: URL?
    /// The package root of the first assertion: where a run record goes.
    var packageRoot: URL?
  }

  /// The run's file name stem, fixed at creation so it is read without the lock.
  private let runName: String
  /// The run this process belongs to (`RunIdentity`): one `swift test` invocation.
  let run: String

  init(environment: ImageTestEnvironment, run: String? = nil) {
    self.environment = environment
    let state = State()
    self.state = state
    let run = run ?? RunIdentity.current(processRunID: state.runID)
    self.run = run
    self.runName = OutputFolderRuns.fileStem(
      startedAt: state.startedAt, processID: getpid(), processRunID: state.runID, run: run)
  }

  // MARK: Recording what runs

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

  /// Notes that a reference path was compared against, so `merge-refs` does not call it an orphan.
  public func noteVerified(_ location: ReferenceLocation) {
    _ = locked { $0.verified.insert(location.relativePath) }
  }

  /// Claims a reference path for one test's assertion: a reference has one owner, so a second
  /// test asking for the same path in this process is refused, naming both assertions.
  /// - Parameters:
  ///   - use: The assertion (its verdict is not read).
  ///   - packageRoot: The package the reference belongs to.
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
    guard owner.test == use.test else {
      throw .sharedReference(path: use.path, first: owner.place, second: use.place)
    }
  }

  /// Records what came of an assertion, for the manifest or the run record.
  func recordUse(_ use: ArchiveManifest.ReferenceUse) {
    locked { $0.uses.append(use) }
  }

  /// Where this run's archive will be written for a package: the failure messages name it in
  /// the command that lands a kept render.
  func archiveLocation(packageRoot: URL) -> URL {
    let folder = locked { $0.archiveFolder } ?? environment.archiveFolder(packageRoot: packageRoot)
    return folder.appendingPathComponent("\(runName).zip")
  }

  // MARK: Storing

  /// Stages an image for the run's archive. The caller pays for a copy of the pixels; encoding
  /// and writing happen on the background pool.
  /// - Parameters:
  ///   - image: The rendered image.
  ///   - location: Where it belongs.
  ///   - test: The test storing it, for the manifest and duplicate errors.
  ///   - failedComparison: For the render of a failed comparison: what it was compared with.
  /// - Throws: `ReferenceImageError.duplicateImage` when the path was stored before in this run;
  ///   `.writeFailed` when the staging folder cannot be created.
  public func store(
    _ image: RGBAImage, at location: ReferenceLocation, test: String,
    failedComparison: ArchiveManifest.FailedComparison? = nil
  ) throws(ReferenceImageError) {
    try store(
      image, at: location, test: test, failedComparison: failedComparison, comparison: nil,
      knownPixelSHA256: nil)
  }

  /// Stores an image as `store(_:at:test:failedComparison:)` does, with the comparison the
  /// assertion uses (for the manifest) and the pixels' SHA-256 when the assertion computed it
  /// already (it must be the hash of exactly `image.pixels`).
  func store(
    _ image: RGBAImage, at location: ReferenceLocation, test: String,
    failedComparison: ArchiveManifest.FailedComparison?, comparison: ComparisonRecord?,
    knownPixelSHA256: [UInt8]?
  ) throws(ReferenceImageError) {
    let staging = try reserve(location, test: test)
    defer { submissions.leave() }
    pool.submit { [self] in
      self.encodeAndWrite(
        image, location: location, test: test, failedComparison: failedComparison,
        comparison: comparison, knownPixelSHA256: knownPixelSHA256, staging: staging)
    }
  }

  /// Records an image whose reference already holds its pixels: the manifest lists it as
  /// unchanged, and nothing is encoded or archived.
  /// - Parameters:
  ///   - image: The rendered image.
  ///   - location: Where it belongs.
  ///   - test: The test that rendered it.
  ///   - reference: The reference file and the pixel digest it shares with the image.
  /// - Throws: As `store`: a path recorded twice is an error however each was recorded.
  func recordUnchanged(
    _ image: RGBAImage, at location: ReferenceLocation, test: String,
    reference: UnchangedReference
  ) throws(ReferenceImageError) {
    _ = try reserve(location, test: test)
    defer { submissions.leave() }
    let record = ArchiveManifest.UnchangedImage(
      path: location.relativePath, test: test, width: image.width, height: image.height,
      pixelSHA256: reference.pixelSHA256, pngSHA256: reference.pngSHA256)
    locked { $0.unchanged[location.relativePath] = record }
  }

  private func reserve(_ location: ReferenceLocation, test: String) throws(ReferenceImageError)
    -> StagingFolder
  {
    lock.lock()
    defer { lock.unlock() }
    if let first = state.storedBy[location.relativePath] {
      throw .duplicateImage(path: location.relativePath, firstTest: first, secondTest: test)
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
    state.storedBy[location.relativePath] = test
    submissions.enter()
    return staging
  }

  /// The staging folder, created with a `running` manifest on first use (lock held).
  private func stagingFolder(packageRoot: URL) throws(ReferenceImageError) -> StagingFolder {
    if let staging = state.staging { return staging }
    let folder = environment.archiveFolder(packageRoot: packageRoot)
    let staging = try StagingFolder(archiveFolder: folder, runName: runName)
    state.archiveFolder = folder
    state.staging = staging
    try staging.write(manifest: makeManifest(state, completion: .running))
    return staging
  }

  private func encodeAndWrite(
    _ image: RGBAImage, location: ReferenceLocation, test: String,
    failedComparison: ArchiveManifest.FailedComparison?, comparison: ComparisonRecord?,
    knownPixelSHA256: [UInt8]?, staging: StagingFolder
  ) {
    do {
      // The encoder hashes the pixels for the PNG's digest chunk, unless the assertion did
      // already; the manifest reuses that hash.
      let (png, digest) = try PNGEncoder().encodeWithDigest(
        image, knownPixelSHA256: knownPixelSHA256)
      try staging.write(png: png, relativePath: location.relativePath)
      let record = ArchiveManifest.Image(
        path: location.relativePath, test: test, width: image.width, height: image.height,
        byteCount: png.count, pngSHA256: SHA256.hex(png), pixelSHA256: digest.pixelSHA256,
        failedComparison: failedComparison, comparison: comparison)
      locked { $0.images[location.relativePath] = record }
    } catch {
      let message = "error: ReferenceImages could not stage \(location.relativePath): \(error)"
      FileHandle.standardError.write(Data((message + "\n").utf8))
      locked { $0.writeFailures.append(message) }
    }
  }

  // MARK: Finishing

  /// Waits for every queued image, then writes the archive: exactly once per process, and only
  /// when at least one image was stored. Later calls do nothing.
  /// - Returns: The archive written, or nil.
  @discardableResult
  public func finishRun() -> URL? {
    // Refuse new stores first, then wait for the accepted ones to reach the pool and finish;
    // draining before refusing let a store slip in between and lose its image.
    let isFirstCall = locked { state -> Bool in
      defer { state.finished = true }
      return !state.finished
    }
    guard isFirstCall else { return nil }
    submissions.wait()
    pool.drain()
    let (staging, archiveFolder, manifest) = locked {
      state -> (StagingFolder?, URL?, ArchiveManifest?) in
      (state.staging, state.archiveFolder, self.makeManifest(state, completion: nil))
    }
    guard let manifest else { return nil }
    // Under `reference-shards run`, a process that stored no image still writes its manifest:
    // it is the proof that its tests ran.
    let ranTests =
      !manifest.tests.isEmpty || !(manifest.testDurations ?? []).isEmpty
      || !(manifest.skippedTests ?? []).isEmpty
    let provesTests = environment.shard != nil && ranTests
    let recorded = manifest.images.count + (manifest.unchangedImages?.count ?? 0)
    guard recorded > 0 || provesTests else {
      staging?.remove()
      writeRunRecord(manifest)
      return nil
    }
    let existing = staging.flatMap { staging in archiveFolder.map { (staging, $0) } }
    guard let (staging, archiveFolder) = existing ?? manifestOnlyStaging() else { return nil }
    let archive = archiveFolder.appendingPathComponent("\(runName).zip")
    do {
      try staging.archive(manifest: manifest, to: archive)
      locked { $0.archive = archive }
      removeOldRuns(in: archiveFolder)
      log(
        "ReferenceImages: wrote \(manifest.images.count) images (mode \(environment.mode))"
          + unchangedNote(manifest) + " to " + archive.path)
      return archive
    } catch {
      log(
        "error: ReferenceImages could not write the archive: \(error); the images stay in "
          + "\(staging.url.path), which merge-refs accepts as a source")
      return nil
    }
  }

  /// A process that made image assertions but stored nothing (a passing verify run) leaves its
  /// manifest as a small run record beside the archives: `merge-refs` then knows that this run
  /// passed where an earlier run failed, and lands nothing of the earlier run for those paths.
  private func writeRunRecord(_ manifest: ArchiveManifest) {
    guard let packageRoot = locked({ $0.packageRoot }), !(manifest.referenceUses ?? []).isEmpty
    else { return }
    let folder = environment.archiveFolder(packageRoot: packageRoot)
    let record = folder.appendingPathComponent(runName + GenerationContract.runRecordSuffix)
    do {
      try FileSystem.writeAtomically(Array(try manifest.encoded()), to: record)
      removeOldRuns(in: folder)
    } catch {
      log("warning: ReferenceImages could not write the run record \(record.path): \(error)")
    }
  }

  /// Keeps the default output folder bounded: the runs before the newest few are removed. A
  /// folder the user named (`IMAGE_GENERATION_OUTPUT`) is theirs, and never pruned.
  private func removeOldRuns(in folder: URL) {
    guard environment.outputFolder == nil else { return }
    OutputFolderRuns.removeOldRuns(
      in: folder, keeping: GenerationContract.runsKeptInDefaultFolder, sparing: runName)
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
      log("error: ReferenceImages could not create a staging folder in \(folder.path)")
      return nil
    }
    return (staging, folder)
  }

  /// The messages of images that could not be staged; empty when all were written.
  public var writeFailures: [String] { locked { $0.writeFailures } }

  /// After `finishRun`: when images were lost, says so and ends the process with status 1, so
  /// that `swift test` fails even when the failed image was the last one stored.
  /// - Parameter insideExitHandler: True from `atexit`, where only `_exit` is safe.
  func failProcessIfImagesWereLost(insideExitHandler: Bool) {
    // exit(1) runs the atexit fallback, which comes here again: say it once.
    let failures = locked { state -> [String] in
      defer { state.lossReported = true }
      return state.lossReported ? [] : state.writeFailures
    }
    guard !failures.isEmpty else { return }
    log(
      "error: ReferenceImages could not stage \(failures.count) image(s); failing the run so "
        + "the loss is not missed")
    if insideExitHandler { _exit(1) } else { exit(1) }
  }

  /// The archive written by `finishRun`, if any.
  public var archiveURL: URL? { locked { $0.archive } }

  // MARK: Manifest

  private func makeManifest(_ state: State, completion: ArchiveManifest.Completion?)
    -> ArchiveManifest
  {
    let finished = completion == nil
    return ArchiveManifest(
      toolVersion: referenceImagesVersion, runID: state.runID, run: run, worker: .current(),
      mode: environment.mode.description, startedAt: state.startedAt,
      endedAt: finished ? Date() : nil,
      completion: completion ?? (state.writeFailures.isEmpty ? .finished : .failed),
      tests: state.tests, images: state.images.values.sorted { $0.path < $1.path },
      unchangedImages: state.unchanged.isEmpty
        ? nil : state.unchanged.values.sorted { $0.path < $1.path },
      verifiedReferences: state.verified.sorted(),
      referenceUses: state.uses.isEmpty ? nil : state.uses,
      testDurations: state.durations.isEmpty ? nil : state.durations,
      skippedTests: state.skipped,
      coverage: .init(
        scope: state.coverage ?? .unobserved,
        arguments: Array(CommandLine.arguments.dropFirst())),
      replicas: environment.replicas)
  }

  // MARK: Helpers

  private func locked<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }

  func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }
}
