import ReferenceContracts
import ReferenceImageCore

/// What one `assertImage` call does, decided from the generation mode and what was found at the
/// reference path before anything is written or reported. `ImageAssertion` carries it out: it
/// stores the image when asked, writes the artifacts the failure names, and reports the message.
enum ImageDecision: Equatable {
  /// The comparison passed: nothing is stored.
  case pass
  /// The render goes into the run's archive, and the assertion passes: mode `all`, and a new
  /// image in mode `missing`.
  case store
  /// Mode `all`, and the reference already holds the rendered pixels: the manifest records the
  /// image as unchanged instead of archiving it again.
  case recordUnchanged(UnchangedReference)
  /// The assertion fails; `keepsRender` when the render goes into the run's archive all the
  /// same, so the failure can be reviewed and landed without rendering again.
  case fail(Failure, keepsRender: Bool)

  /// What the assertion's use of its reference comes to, for the manifest's record of uses.
  var verdict: ArchiveManifest.ReferenceUse.Verdict {
    switch self {
    case .pass: .passed
    case .store, .recordUnchanged: .recorded
    case .fail: .failed
    }
  }

  /// Why an assertion fails.
  enum Failure: Equatable {
    /// The generation mode is not one of the documented values.
    case invalidMode(String)
    /// A file exists at the reference path but is not a usable reference.
    case unreadableReference(ReferenceImageError)
    /// No reference exists; `recorded` when this run stored the image for `merge-refs`.
    case missingReference(recorded: Bool)
    /// The image does not match its reference; `recorded` when this run stored the image.
    case mismatch(reference: RGBAImage, result: ComparisonResult, recorded: Bool)
  }

  /// Decides an assertion.
  /// - Parameters:
  ///   - mode: The generation mode in effect for the test.
  ///   - reference: What is at the reference path, compared with the rendered image; evaluated
  ///     only by the modes that compare (`verify`, `missing`, `failed`), so `all` never decodes
  ///     it.
  ///   - unchangedReference: The reference, when its trusted pixel digest names the rendered
  ///     pixels; evaluated only by `all` mode unless `reencodes`.
  ///   - reencodes: `IMAGE_GENERATION_REENCODE`: `all` mode encodes every image, unchanged or
  ///     not (to give old references a digest, say).
  init(
    mode: GenerationMode, reference: @autoclosure () -> ReferenceState,
    unchangedReference: @autoclosure () -> UnchangedReference? = nil, reencodes: Bool = false
  ) {
    switch mode {
    case .invalid(let value):
      self = .fail(.invalidMode(value), keepsRender: false)
    case .all:
      // A render equal to its reference would be archived only for the merge to call it
      // unchanged and throw it away: the manifest says so instead, for the cost of a hash.
      if !reencodes, let unchanged = unchangedReference() {
        self = .recordUnchanged(unchanged)
      } else {
        self = .store
      }
    case .verify, .missing, .failed:
      self.init(comparingMode: mode, reference: reference())
    }
  }

  private init(comparingMode mode: GenerationMode, reference: ReferenceState) {
    let recordsFailures = mode == .failed
    // A verify run keeps what it saw: the render of a failed comparison goes into the run's
    // archive, so the failure can be reviewed and landed without rendering again. The test
    // still fails, and a passing comparison costs nothing more.
    let keepsFailures = recordsFailures || mode == .verify
    switch reference {
    case .matchesByDigest:
      self = .pass
    case .compared(_, let result) where result.passed:
      self = .pass
    case .compared(let image, let result):
      self = .fail(
        .mismatch(reference: image, result: result, recorded: recordsFailures),
        keepsRender: keepsFailures)
    case .missing where mode == .missing:
      self = .store
    case .missing:
      self = .fail(.missingReference(recorded: recordsFailures), keepsRender: keepsFailures)
    case .unreadable(let error):
      // A damaged reference is as good as none: the render is kept in every comparing mode,
      // and the failure prints the one command that lands it over the damaged file.
      self = .fail(.unreadableReference(error), keepsRender: true)
    case .gitLFSPointer(let path):
      // Recording would land a new image over a reference nobody has compared it with.
      self = .fail(.unreadableReference(.gitLFSPointer(path: path)), keepsRender: false)
    }
  }
}

extension ImageDecision.Failure {
  /// Which failure artifacts go with the message.
  enum Artifacts: Equatable {
    case none
    /// The rendered image alone: there is no reference to show.
    case actual
    /// The rendered image, the reference and their difference image.
    case actualReferenceAndDifference(reference: RGBAImage)
  }

  /// The artifacts a person needs to see this failure.
  var artifacts: Artifacts {
    switch self {
    case .missingReference(recorded: false): .actual
    case .mismatch(let reference, _, _): .actualReferenceAndDifference(reference: reference)
    case .invalidMode, .unreadableReference, .missingReference(recorded: true): .none
    }
  }

  /// What a kept image's manifest record says about this failure: the reference's pixels and
  /// the verdict; nil for failures that compared nothing.
  func comparisonRecord(
    image: RGBAImage, comparison: ImageComparison, file: String, line: Int
  ) -> ArchiveManifest.FailedComparison? {
    let total = image.width * image.height
    switch self {
    case .missingReference:
      return .init(
        referencePixelSHA256: nil, comparison: comparison.name, verdict: "no reference",
        differingPixels: nil, totalPixels: total, file: file, line: line)
    case .mismatch(let reference, let result, _):
      // Hashed only here, for a failure: passing comparisons never pay for it.
      return .init(
        referencePixelSHA256: SHA256Digest(of: reference.pixels), comparison: comparison.name,
        verdict: result.description, differingPixels: result.differences?.differingPixelCount,
        totalPixels: result.differences?.totalPixelCount ?? total, file: file, line: line)
    case .unreadableReference(.unreadableReference(_, let reason)):
      return .init(
        referencePixelSHA256: nil, comparison: comparison.name,
        verdict: "unreadable reference (\(reason))", differingPixels: nil, totalPixels: total,
        file: file, line: line)
    case .invalidMode, .unreadableReference:
      return nil
    }
  }

  /// Whether the failure says the image was recorded for `merge-refs` (modes `missing` and
  /// `failed`).
  var isRecorded: Bool {
    switch self {
    case .missingReference(let recorded), .mismatch(_, _, let recorded): recorded
    case .invalidMode, .unreadableReference: false
    }
  }

  /// The failure message.
  /// - Parameters:
  ///   - location: The reference's location.
  ///   - comparison: The comparison the assertion used.
  ///   - artifacts: The sentence listing the artifacts written, when `artifacts` asks for some.
  func message(at location: ReferenceLocation, comparison: ImageComparison, artifacts: String)
    -> String
  {
    switch self {
    case .invalidMode(let value):
      return GenerationMode.invalidMessage(value)
    case .unreadableReference(.unreadableReference(let path, let reason)):
      // The landing command that follows restores it; "delete it and record again" alone
      // left the reference deleted.
      return "reference \(path) is unreadable: \(reason)"
    case .unreadableReference(let error):
      return "\(error)"
    case .missingReference(recorded: true):
      return "no reference at \(location.relativePath)"
    case .missingReference(recorded: false):
      return "no reference at \(location.relativePath); \(artifacts)"
    case .mismatch(_, let result, _):
      return "\(location.relativePath): \(result); \(artifacts)"
    }
  }
}
