import Foundation
import ReferenceContracts
import ReferenceImageCore

/// Compares a rendered image with its reference, or records it, depending on the generation
/// mode: `IMAGE_GENERATION_MODE`, unless
/// ``withReferenceImages(mode:referenceFolder:variant:operation:)`` or the
/// `.referenceImages(mode:referenceFolder:variant:)` trait sets another for the calling test.
/// Works in XCTest and Swift Testing tests alike.
///
/// ```swift
/// func testBarChart() throws {
///   let image = BarChart(values: [3, 5, 2]).render()
///   assertImage(image, named: "bar-chart", comparison: .perceptual(threshold: 0.1),
///               bound: .requiredAccuracy(0.999))
/// }
/// ```
///
/// In verify mode a missing reference fails with its path and the command that records it; a
/// mismatch fails with the numbers, one line per changed region saying what kind of change it
/// is ("region x 10…45, y 8…14: moved by (2, 1)"; `ChangeKind`), and writes actual, reference
/// and difference PNGs into `IMAGE_DIFF_DIR`. In `all` mode the image is stored and nothing is compared.
/// - Parameters:
///   - image: The rendered image.
///   - name: The reference's name, without `.png`; unique within the test file.
///   - comparison: How pixels are compared; `.exact` unless given. Shift tolerance is an option
///     of the comparison: `.perceptual().shiftTolerance(1)`.
///   - bound: How many differing pixels are allowed; none unless given.
///   - ignoring: Rectangles whose pixels are not compared (`IgnoredRegion`): a clock, a
///     random avatar. They count neither as differing nor as compared, the difference image
///     draws them in blue, and the archive records them with the comparison, so `merge-refs`
///     and the review judge as the test did. None unless given.
///   - referenceFolder: A folder instead of the default, the test file's folder in its target's
///     reference root (`Tests/<Target>/__References__/<folders>/<TestFile>/`, see
///     ``ReferenceLocation``); absolute, or relative to the package root; nil for the scoped
///     setting, if any.
///   - fileID: The calling file's `#fileID`, for Swift Testing's issue location.
///   - filePath: The calling file's `#filePath`: it locates the references and the package.
///   - line: The calling line, where a failure is reported.
///   - column: The calling column, where a Swift Testing issue is reported.
public func assertImage(
  _ image: RGBAImage, named name: String, comparison: ImageComparison = .exact,
  bound: DifferenceBound = .none, ignoring: [IgnoredRegion] = [], referenceFolder: URL? = nil,
  fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) {
  let context = TestContext(fileID: fileID, filePath: filePath, line: line, column: column)
  ImageAssertion(
    image: image, name: name, comparison: comparison.ignoring(ignoring), bound: bound,
    referenceFolder: referenceFolder, context: context
  ).run()
}

/// Like
/// ``assertImage(_:named:comparison:bound:ignoring:referenceFolder:fileID:filePath:line:column:)``,
/// with the bound given as the fraction of pixels that must match: `requiredAccuracy: 0.999`
/// allows one pixel in a thousand (of the pixels outside the ignored regions).
/// - Parameters:
///   - image: The rendered image.
///   - name: The reference's name, without `.png`; unique within the test file.
///   - comparison: How pixels are compared; `.exact` unless given.
///   - requiredAccuracy: The fraction of compared pixels that must match, 0 to 1.
///   - ignoring: Rectangles whose pixels are not compared; none unless given.
///   - referenceFolder: A folder instead of the default; nil for the scoped setting, if any.
///   - fileID: The calling file's `#fileID`, for Swift Testing's issue location.
///   - filePath: The calling file's `#filePath`: it locates the references and the package.
///   - line: The calling line, where a failure is reported.
///   - column: The calling column, where a Swift Testing issue is reported.
public func assertImage(
  _ image: RGBAImage, named name: String, comparison: ImageComparison = .exact,
  requiredAccuracy: Double, ignoring: [IgnoredRegion] = [], referenceFolder: URL? = nil,
  fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) {
  assertImage(
    image, named: name, comparison: comparison, bound: .requiredAccuracy(requiredAccuracy),
    ignoring: ignoring, referenceFolder: referenceFolder, fileID: fileID, filePath: filePath,
    line: line, column: column)
}

/// One run of `assertImage`: resolve the settings and the location, decide (`ImageDecision`),
/// then carry the decision out: store, write artifacts, report.
struct ImageAssertion {
  let image: RGBAImage
  let name: String
  let comparison: ImageComparison
  let bound: DifferenceBound
  let referenceFolder: URL?
  let context: TestContext
  var coordinator = ImageCoordinator.shared
  /// Where a pointer reference's object comes from when the render must be compared with it.
  var stores = PackageStores.shared
  /// The test file that locates the package and its references: the calling file, unless a
  /// test of this package places the assertion in a temporary package.
  var testFile: String?

  func run() {
    coordinator.registerIfNeeded()
    let owner = startTest()
    let settings = ReferenceImageSettings.current
    let mode = settings.mode ?? coordinator.environment.mode
    // A bad mode is reported before the name is looked at: it is the first thing to fix.
    if case .invalid(let value) = mode {
      return context.fail(GenerationMode.invalidMessage(value))
    }
    guard let places = resolvePlaces(settings: settings, mode: mode),
      let use = claim(places.location, owner: owner)
    else { return }
    let pixelHash = RenderedPixelHash(image)
    let (decision, comparedResult) = decide(mode: mode, places: places, pixelHash: pixelHash)
    coordinator.recordUse(use(decision.verdict))
    if decision == .pass, let result = comparedResult,
      let tolerated = ToleranceDrift.Pass(path: places.compared.relativePath, result: result)
    {
      coordinator.noteToleratedPass(tolerated)
    }
    perform(
      decision, at: places.location, comparedWith: places.compared, owner: owner,
      knownPixelSHA256: pixelHash.computed,
      variantNote: places.chain.map { "; " + $0.note } ?? "",
      landable: places.chain?.rendersCanLand ?? true)
  }

  /// Where an assertion's render belongs and what it is compared with.
  private struct Places {
    /// The render's own file, where it is stored, claimed and named: its variant's, or the
    /// reference itself without variants.
    let location: ReferenceLocation
    /// The most specific file of its chain that exists: what it is compared with.
    let compared: ReferenceLocation
    /// The variant chain, when the package declares variants.
    let chain: VariantChain?
  }

  /// The assertion's owner: the test, with its case's arguments when it has some. A Swift
  /// Testing test is noted as started here (XCTest's observer sees its own tests start).
  private func startTest() -> ImageOwner {
    let test = context.testName(coordinator: coordinator)
    let testCase = context.testCase
    if context.isSwiftTesting { coordinator.testStarted(test, isXCTest: false) }
    return ImageOwner(test: test, testCase: testCase)
  }

  /// The reference's location and its variant chain; nil, with the test failed, when they
  /// cannot be resolved.
  private func resolvePlaces(settings: ReferenceImageSettings, mode: GenerationMode) -> Places? {
    let base: ReferenceLocation
    let chain: VariantChain?
    do {
      base = try ReferenceLocation(
        name: name, filePath: testFile ?? "\(context.filePath)",
        folder: referenceFolder ?? settings.referenceFolder,
        environment: Self.referenceFolderEnvironment())
      chain = try VariantChain.resolve(
        base: base, name: name, requested: settings.variant ?? coordinator.environment.variant,
        generating: mode.storesImages)
    } catch {
      context.fail("\(error)")
      return nil
    }
    if let chain { coordinator.noteVariant(chain.running) }
    // A render is stored, claimed and named as its variant's own file; it is compared with the
    // most specific file of its chain that exists.
    let location = chain?.own ?? base
    return Places(location: location, compared: chain?.compared ?? location, chain: chain)
  }

  /// Claims the reference for the owner: one reference, one owner.
  /// - Returns: The owner's use of the reference with a given verdict, for the manifest; nil,
  ///   with the test failed, when another owner has the reference.
  private func claim(_ location: ReferenceLocation, owner: ImageOwner)
    -> ((ArchiveManifest.ReferenceUse.Verdict) -> ArchiveManifest.ReferenceUse)?
  {
    let file = context.packageRelativeFile(packageRoot: location.packageRoot)
    let line = Int(context.line)
    let use = { (verdict: ArchiveManifest.ReferenceUse.Verdict) in
      ArchiveManifest.ReferenceUse(
        path: location.relativePath, test: owner.test, file: file, line: line,
        verdict: verdict, testCase: owner.testCase)
    }
    do {
      try coordinator.claim(use(.failed), packageRoot: location.packageRoot)
    } catch {
      // Recorded all the same, so that the merge names both tests too.
      coordinator.recordUse(use(.failed))
      context.fail("\(error)")
      return nil
    }
    return use
  }

  /// Decides what becomes of the render (`ImageDecision`).
  /// - Returns: The decision, and the comparison's result when the decision compared: a pass
  ///   that tolerated differences is noted for the run's closing line.
  private func decide(mode: GenerationMode, places: Places, pixelHash: RenderedPixelHash)
    -> (ImageDecision, ReferenceImageCore.ComparisonResult?)
  {
    var comparedResult: ReferenceImageCore.ComparisonResult?
    // Read only when the decision asks for it: mode `all` records and never compares, so it
    // neither decodes the reference, nor compares the render with it, nor fetches a pointer's
    // object from the store.
    func readReference() -> ReferenceState {
      let state = ReferenceState.read(
        at: places.compared, comparing: image, by: comparison, bound: bound,
        pixelHash: pixelHash, stores: stores)
      if case .compared(_, let result) = state { comparedResult = result }
      // Only a verify run: a generation run (a plugin's dry run too) writes nothing in the tree.
      if case .missing = state, !mode.storesImages { Self.makeTargetRoot(of: places.location) }
      return state
    }
    let decision = ImageDecision(
      mode: mode,
      reference: readReference(),
      // Only the variant's own file can be recorded unchanged: a render equal to a fallback is
      // archived, so the merge decides with it whether the variant needs a file.
      unchangedReference: places.compared == places.location
        ? UnchangedReference.read(at: places.location, matching: image, pixelHash: pixelHash)
        : nil,
      reencodes: coordinator.environment.reencodes)
    return (decision, comparedResult)
  }

  /// Makes the reference root of the target a missing reference belongs in
  /// (`Tests/<Target>/__References__`), holding an empty `.gitkeep`, when a verify run finds it is
  /// not there yet: the setup README shows, done for a user who skipped it. The target's
  /// `exclude: ["__References__"]` then names a folder that exists, the next build (the one that
  /// records) has no "not found" warning, and `git status` shows the `.gitkeep` to commit, so a
  /// fresh clone has the folder too (git keeps no empty folder; SwiftPM ignores hidden files).
  /// Nothing else is written, and a read-only checkout only keeps the warning.
  private static func makeTargetRoot(of location: ReferenceLocation) {
    guard let root = ReferenceLayout.targetRoot(ofReference: location.relativePath) else { return }
    let url = location.packageRoot.appendingPathComponent(root, isDirectory: true)
    guard !FileManager.default.fileExists(atPath: url.path),
      FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path),
      (try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: false))
        != nil
    else { return }
    FileManager.default.createFile(
      atPath: url.appendingPathComponent(ReferenceLayout.placeholder).path, contents: Data())
  }

  /// `IMAGE_REFERENCE_DIR` alone, read now: the whole process environment as a dictionary
  /// cost a verify run about a tenth of its own time beyond rendering.
  private static func referenceFolderEnvironment() -> [String: String] {
    let name = ReferenceLocation.environmentVariable
    guard let value = getenv(name) else { return [:] }
    return [name: String(cString: value)]
  }

  private func perform(
    _ decision: ImageDecision, at location: ReferenceLocation,
    comparedWith compared: ReferenceLocation, owner: ImageOwner, knownPixelSHA256: [UInt8]?,
    variantNote: String, landable: Bool
  ) {
    var kept = false
    let recorded = ComparisonRecord(comparison, bound: bound)
    do {
      switch decision {
      case .pass, .fail(_, keepsRender: false):
        break
      case .store:
        try coordinator.store(
          image, at: location, owner: owner, failedComparison: nil, comparison: recorded,
          knownPixelSHA256: knownPixelSHA256)
      case .recordUnchanged(let reference):
        try coordinator.recordUnchanged(
          image, at: location, owner: owner, reference: reference, comparison: recorded)
      case .fail(let failure, keepsRender: true):
        let record = failure.comparisonRecord(
          image: image, comparison: comparison,
          file: context.packageRelativeFile(packageRoot: location.packageRoot),
          line: Int(context.line))
        try coordinator.store(
          image, at: location, owner: owner, failedComparison: record, comparison: recorded,
          knownPixelSHA256: knownPixelSHA256)
        kept = record != nil
      }
    } catch {
      context.fail("\(error)")
    }
    guard case .fail(let failure, _) = decision else { return }
    // Drawn once, for the artifact and for the kinds of change.
    let difference = failure.differenceImage(image: image, comparison: comparison)
    let artifacts = writeArtifacts(
      failure.artifacts, difference: difference, location: location, testCase: owner.testCase)
    // One indented line per changed region, between the sentence and the landing command,
    // which stays last.
    let regions = failure.changeLines(
      image: image, differenceImage: difference, comparison: comparison
    )
    .map { "\n  " + $0 }.joined()
    let separator = regions.isEmpty ? "; " : "\n"
    let landing = kept && landable ? separator + landingAdvice(location) : ""
    // A case says which it is in its own words too: logs and annotations show the message alone.
    let casePrefix = owner.testCase.map { "[\($0)] " } ?? ""
    context.fail(
      casePrefix + failure.message(at: compared, comparison: comparison, artifacts: artifacts)
        + variantNote + regions + landing)
  }

  /// The sentence that ends a failure whose render this run's archive keeps: the command that
  /// lands exactly that render, pasted into the package root, and the plugin's way.
  private func landingAdvice(_ location: ReferenceLocation) -> String {
    let archiveWord = coordinator.archiveLocation(packageRoot: location.packageRoot)
      .pathRelative(toPackageRoot: location.packageRoot)
    let land = ShellWord.line(
      ["swift", "run", "merge-refs", "--include", location.relativePath, archiveWord, "."])
    var advice =
      "the render is kept in this run's archive; to make it the reference, run this in the "
      + "package root once the tests have finished: \(land)"
    if let listing = context.listingName(coordinator: coordinator) {
      // Anchored and escaped, so it selects exactly this test in either framework.
      let filter = TestFilter.pattern(for: listing)
      let plugin = ShellWord.line(
        [
          "swift", "package", "--allow-writing-to-package-directory", "regenerate-references",
          "--mode", RunMode.failed.rawValue, "--filter", filter,
        ])
      advice += " (with the plugin, which renders it again: \(plugin))"
    }
    return advice
  }

  /// Writes the artifacts and returns the sentence naming them; empty when none are asked for.
  private func writeArtifacts(
    _ artifacts: ImageDecision.Failure.Artifacts, difference: RGBAImage?,
    location: ReferenceLocation, testCase: String?
  ) -> String {
    let reference: RGBAImage?
    switch artifacts {
    case .none: return ""
    case .actual: reference = nil
    case .actualReferenceAndDifference(let image): reference = image
    }
    let folder = coordinator.environment.artifactFolder(packageRoot: location.packageRoot)
    do {
      return try FailureArtifacts.write(
        actual: image, reference: reference, comparison: comparison, difference: difference,
        location: location, testCase: testCase, folder: folder, context: context
      ).summary
    } catch {
      return "could not write the artifacts: \(error)"
    }
  }
}
