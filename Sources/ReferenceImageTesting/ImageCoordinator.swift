import Foundation
import ReferenceContracts
import ReferenceImageCore

/// The per-process coordinator of image generation: it stages every stored image, encodes them
/// in the background, and turns the staging folder into one archive when the run ends.
///
/// It owns the run's two records: the `TestRunLedger` (what ran and what was verified) and the
/// `ImageStager` (the images and the archive), which writes the manifest from both
/// (`ManifestComposer`). Calls flow one way: the coordinator calls the stager, the stager reads
/// the ledger, and neither calls back.
///
/// It is registered as an XCTest observer when the test binary loads (see
/// `CReferenceImageRegistration`), or lazily on first use; nobody needs to create one. All
/// methods are thread-safe, because Swift Testing runs tests concurrently.
public final class ImageCoordinator: @unchecked Sendable {
  /// The process's coordinator.
  public static let shared = ImageCoordinator(environment: ImageTestEnvironment())

  /// The settings read from the environment when the process started.
  public let environment: ImageTestEnvironment

  /// What ran and what was verified.
  let ledger = TestRunLedger()
  /// The images and the archive.
  let stager: ImageStager

  /// The run this process belongs to (`RunIdentity`): one `swift test` invocation.
  let run: String

  init(environment: ImageTestEnvironment, run: String? = nil) {
    self.environment = environment
    let startedAt = Date()
    let runID = UUID().uuidString.lowercased()
    let run = run ?? RunIdentity.current(processRunID: runID)
    self.run = run
    let runName = OutputFolderRuns.fileStem(
      startedAt: startedAt, processID: getpid(), processRunID: runID, run: run)
    stager = ImageStager(
      environment: environment, runName: runName,
      composer: ManifestComposer(
        runID: runID, run: run, startedAt: startedAt, environment: environment, ledger: ledger))
  }

  // MARK: Recording what runs

  /// Notes that a test started, for the manifest's list of tests.
  func testStarted(_ name: String, isXCTest: Bool) {
    ledger.testStarted(name, isXCTest: isXCTest)
  }

  /// Notes that an XCTest test started, timing it by its `swift test list` name.
  func xcTestStarted(listingName: String) {
    ledger.xcTestStarted(listingName: listingName)
  }

  /// Notes that an XCTest test finished: its duration goes into the manifest.
  func xcTestFinished(listingName: String) {
    ledger.xcTestFinished(listingName: listingName)
  }

  /// Notes that an XCTest test was skipped: it ran, but verified nothing.
  func xcTestSkipped(listingName: String) {
    ledger.xcTestSkipped(listingName: listingName)
  }

  /// Notes that an XCTest test failed: the merge keeps what it may own from the orphan search.
  func xcTestFailed(listingName: String, file: String?) {
    ledger.xcTestFailed(listingName: listingName, file: file)
  }

  /// Notes XCTest's root suite: whether this process runs its whole bundle or selected tests.
  func xcTestRootSuiteStarted(runsWholeBundle: Bool) {
    ledger.xcTestRootSuiteStarted(runsWholeBundle: runsWholeBundle)
  }

  /// The XCTest test running now, if any.
  var currentXCTestName: String? { ledger.currentXCTestName }

  /// The XCTest test running now, by its `swift test list` name, if any.
  var currentXCTestListingName: String? { ledger.currentXCTestListingName }

  /// Notes that a reference path was compared against, so `merge-refs` does not call it an orphan.
  public func noteVerified(_ location: ReferenceLocation) {
    ledger.noteVerified(location.relativePath)
  }

  /// Claims a reference path for one test's assertion: a reference has one owner, so a second
  /// test asking for the same path in this process is refused, naming both assertions.
  /// - Parameters:
  ///   - use: The assertion (its verdict is not read).
  ///   - packageRoot: The package the reference belongs to.
  /// - Throws: `ReferenceImageError.sharedReference` when another test used the path before.
  func claim(_ use: ArchiveManifest.ReferenceUse, packageRoot: URL) throws(ReferenceImageError) {
    try ledger.claim(use, packageRoot: packageRoot)
  }

  /// Records the variant an assertion ran as, for the manifest's `variants`.
  func noteVariant(_ running: RunningVariant) {
    ledger.noteVariant(running.description)
  }

  /// Notes a comparison that passed only within tolerance: the run's closing lines say how
  /// many did, and the largest share tolerated.
  func noteToleratedPass(_ pass: ToleranceDrift.Pass) {
    ledger.noteToleratedPass(pass)
  }

  /// Records what came of an assertion, for the manifest or the run record.
  func recordUse(_ use: ArchiveManifest.ReferenceUse) {
    ledger.recordUse(use)
  }

  /// Where this run's archive will be written for a package: the failure messages name it in
  /// the command that lands a kept render.
  func archiveLocation(packageRoot: URL) -> URL {
    stager.archiveLocation(packageRoot: packageRoot)
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
      image, at: location, owner: ImageOwner(test: test), failedComparison: failedComparison,
      comparison: nil, knownPixelSHA256: nil)
  }

  /// Stores an image as `store(_:at:test:failedComparison:)` does, with the comparison the
  /// assertion uses (for the manifest) and the pixels' SHA-256 when the assertion computed it
  /// already (it must be the hash of exactly `image.pixels`).
  func store(
    _ image: RGBAImage, at location: ReferenceLocation, owner: ImageOwner,
    failedComparison: ArchiveManifest.FailedComparison?, comparison: ComparisonRecord?,
    knownPixelSHA256: [UInt8]?
  ) throws(ReferenceImageError) {
    try stager.store(
      image, at: location, owner: owner, failedComparison: failedComparison,
      comparison: comparison, knownPixelSHA256: knownPixelSHA256)
  }

  /// Records an image whose reference already holds its pixels: the manifest lists it as
  /// unchanged, and nothing is encoded or archived.
  /// - Parameters:
  ///   - image: The rendered image.
  ///   - location: Where it belongs.
  ///   - owner: The test, or parameterized test case, that rendered it.
  ///   - reference: The reference file and the pixel digest it shares with the image.
  ///   - comparison: The comparison the assertion uses, so the merge can tell a variant's
  ///     unchanged file from its fallback as the test would.
  /// - Throws: As `store`: a path recorded twice is an error however each was recorded.
  func recordUnchanged(
    _ image: RGBAImage, at location: ReferenceLocation, owner: ImageOwner,
    reference: UnchangedReference, comparison: ComparisonRecord?
  ) throws(ReferenceImageError) {
    let record = ArchiveManifest.UnchangedImage(
      path: location.relativePath, test: owner.test, width: image.width, height: image.height,
      pixelSHA256: reference.pixelSHA256, pngSHA256: reference.pngSHA256,
      testCase: owner.testCase, comparison: comparison)
    try stager.recordUnchanged(record, at: location)
  }

  // MARK: Finishing

  /// Waits for every queued image, then ends the run as `RunEnding` decides: exactly once per
  /// process, with an archive only when at least one image was recorded (or a shard's tests
  /// ran). Later calls do nothing.
  /// - Returns: The archive written, or nil.
  @discardableResult
  public func finishRun() -> URL? {
    guard let finished = stager.finish() else { return nil }
    if let line = ledger.drift.closingLine {
      log(line)
      appendToJobSummary(line)
    }
    let ending = RunEnding(
      manifest: finished.manifest, staging: finished.staging,
      archiveFolder: finished.archiveFolder, environment: environment,
      assertionsPackage: ledger.packageRoot)
    return stager.end(ending, manifest: finished.manifest)
  }

  /// The messages of images that could not be staged; empty when all were written.
  public var writeFailures: [String] { stager.writeFailures }

  /// After `finishRun`: when images were lost, says so and ends the process with status 1, so
  /// that `swift test` fails even when the failed image was the last one stored.
  /// - Parameter insideExitHandler: True from `atexit`, where only `_exit` is safe.
  func failProcessIfImagesWereLost(insideExitHandler: Bool) {
    // exit(1) runs the atexit fallback, which comes here again: say it once.
    let failures = stager.takeUnreportedFailures()
    guard !failures.isEmpty else { return }
    log(
      "error: ReferenceImages could not stage \(failures.count) image(s); failing the run so "
        + "the loss is not missed")
    if insideExitHandler { _exit(1) } else { exit(1) }
  }

  /// The archive written by `finishRun`, if any.
  public var archiveURL: URL? { stager.archiveURL }

  /// Appends a note to the CI job summary, when the job has one: a passing verify job writes
  /// no other summary, and drift under tolerance must be seen without reading the log. Each
  /// test process (each `--parallel` worker) appends its own line.
  private func appendToJobSummary(_ line: String) {
    guard let summary = environment.jobSummary else { return }
    let note = Data(
      ("\n" + line.replacingOccurrences(of: "ReferenceImages: ", with: "**ReferenceImages**: ")
        + "\n").utf8)
    guard let handle = FileHandle(forWritingAtPath: summary.path) else {
      return log("warning: ReferenceImages could not append to the job summary \(summary.path)")
    }
    defer { try? handle.close() }
    _ = try? handle.seekToEnd()
    try? handle.write(contentsOf: note)
  }

  /// Writes a line to the test log.
  func log(_ line: String) {
    logToStandardError(line)
  }
}
