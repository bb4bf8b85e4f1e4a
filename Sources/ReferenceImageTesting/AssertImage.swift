import Foundation
import ReferenceImageCore

/// Compares a rendered image with its reference, or records it, depending on
/// `IMAGE_GENERATION_MODE`. Works in XCTest and Swift Testing tests alike.
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
/// mismatch fails with the numbers and writes actual, reference and difference PNGs into
/// `IMAGE_DIFF_DIR`. In `all` mode the image is stored and nothing is compared.
/// - Parameters:
///   - image: The rendered image.
///   - name: The reference's name, without `.png`; unique within the test file.
///   - comparison: How pixels are compared; `.exact` unless given.
///   - bound: How many differing pixels are allowed; none unless given.
///   - referenceFolder: A folder instead of the default `__References__/<TestFile>/` beside the
///     test file (absolute, or relative to the package root).
public func assertImage(
  _ image: RGBAImage, named name: String, comparison: ImageComparison = .exact,
  bound: DifferenceBound = .none, referenceFolder: URL? = nil,
  fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) {
  let context = TestContext(fileID: fileID, filePath: filePath, line: line, column: column)
  ImageAssertion(
    image: image, name: name, comparison: comparison, bound: bound,
    referenceFolder: referenceFolder, context: context
  ).run()
}

/// Like `assertImage(_:named:comparison:bound:referenceFolder:)`, with the bound given as the
/// fraction of pixels that must match: `requiredAccuracy: 0.999` allows one pixel in a thousand.
public func assertImage(
  _ image: RGBAImage, named name: String, comparison: ImageComparison = .exact,
  requiredAccuracy: Double, referenceFolder: URL? = nil,
  fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) {
  assertImage(
    image, named: name, comparison: comparison, bound: .requiredAccuracy(requiredAccuracy),
    referenceFolder: referenceFolder, fileID: fileID, filePath: filePath, line: line,
    column: column)
}

/// One run of `assertImage`: the decisions of the generation modes, in order.
struct ImageAssertion {
  let image: RGBAImage
  let name: String
  let comparison: ImageComparison
  let bound: DifferenceBound
  let referenceFolder: URL?
  let context: TestContext
  let coordinator = ImageCoordinator.shared

  var mode: GenerationMode { coordinator.environment.mode }

  func run() {
    coordinator.registerIfNeeded()
    let test = context.testName(coordinator: coordinator)
    if context.isSwiftTesting { coordinator.testStarted(test, isXCTest: false) }
    if case .invalid(let value) = mode {
      return context.fail(GenerationMode.invalidMessage(value))
    }
    let location: ReferenceLocation
    do {
      location = try ReferenceLocation(
        name: name, filePath: "\(context.filePath)", folder: referenceFolder)
    } catch {
      return context.fail("\(error)")
    }
    coordinator.noteVerified(location)
    if mode == .all {
      return store(at: location, test: test)
    }
    verify(at: location, test: test)
  }

  private func verify(at location: ReferenceLocation, test: String) {
    let reference: RGBAImage?
    do {
      reference = try ReferenceImages.loadReference(at: location)
    } catch {
      if mode == .failed { store(at: location, test: test) }
      return context.fail("\(error)")
    }
    guard let reference else { return missingReference(at: location, test: test) }
    let result = comparison.compare(image, to: reference, bound: bound)
    guard !result.passed else { return }
    if mode == .failed { store(at: location, test: test) }
    var message = "\(location.relativePath): \(result) (\(comparison.name) comparison)"
    message += "; " + artifactSummary(reference: reference, location: location)
    if mode != .failed {
      message += "; if the change is intended, run with IMAGE_GENERATION_MODE=failed to record it"
    }
    context.fail(message)
  }

  private func missingReference(at location: ReferenceLocation, test: String) {
    switch mode {
    case .missing:
      store(at: location, test: test)
    case .failed:
      store(at: location, test: test)
      context.fail("no reference at \(location.url.path); recorded it for merge-refs")
    default:
      let artifacts = artifactSummary(reference: nil, location: location)
      context.fail(
        "no reference at \(location.url.path); run with IMAGE_GENERATION_MODE=missing "
          + "(`IMAGE_GENERATION_MODE=missing swift test`) and merge the archive with merge-refs "
          + "to record it; \(artifacts)")
    }
  }

  private func store(at location: ReferenceLocation, test: String) {
    do {
      try coordinator.store(image, at: location, test: test)
    } catch {
      context.fail("\(error)")
    }
  }

  private func artifactSummary(reference: RGBAImage?, location: ReferenceLocation) -> String {
    let folder = coordinator.environment.artifactFolder(packageRoot: location.packageRoot)
    do {
      return try FailureArtifacts.write(
        actual: image, reference: reference, comparison: comparison, location: location,
        folder: folder, context: context
      ).summary
    } catch {
      return "could not write the artifacts: \(error)"
    }
  }
}
