import ReferenceImageCore

// The records of a run's images: those it archived, and those it found unchanged.
extension ArchiveManifest {
  /// One image the run rendered.
  public struct Image: Codable, Sendable, Equatable {
    /// The path relative to the package root, with `/` separators.
    public var path: String
    /// The test that produced it, by its `swift test list` name, such as
    /// `ChartTests.BarChartTests/testBars` (XCTest's own name in version 1).
    public var test: String
    /// For a case of a parameterized Swift Testing test, its arguments (`TestName.caseLabel`):
    /// the case is the image's owner; nil for a test without arguments.
    public var testCase: String?
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int
    /// The size of the PNG file in bytes.
    public var byteCount: Int
    /// SHA-256 of the PNG file's bytes, written as 64 lowercase hex digits.
    public var pngSHA256: SHA256Digest
    /// SHA-256 of the decoded RGBA8 pixels (row-major, no padding), written as hex.
    public var pixelSHA256: SHA256Digest
    /// For an image kept because its comparison failed (a verify run, or mode `failed`): what
    /// it was compared with and where the assertion is; nil for images recorded otherwise.
    public var failedComparison: FailedComparison?
    /// The comparison and bound the test's assertion uses, so that later readers (the review)
    /// judge as the test does; nil in archives of older versions, read as exact.
    public var comparison: ComparisonRecord?

    /// Creates an image record.
    public init(
      path: String, test: String, width: Int, height: Int, byteCount: Int,
      pngSHA256: SHA256Digest, pixelSHA256: SHA256Digest, failedComparison: FailedComparison? = nil,
      comparison: ComparisonRecord? = nil, testCase: String? = nil
    ) {
      self.path = path
      self.test = test
      self.testCase = testCase
      self.width = width
      self.height = height
      self.byteCount = byteCount
      self.pngSHA256 = pngSHA256
      self.pixelSHA256 = pixelSHA256
      self.failedComparison = failedComparison
      self.comparison = comparison
    }

    /// The image's owner for messages: the test, with its case's arguments when it has some.
    public var owner: String { TestName.owner(test: test, testCase: testCase) }
  }

  /// Why an image was kept by a failing comparison: the reference it was compared with (by its
  /// pixels, so `merge-refs` lands it only over that reference), the verdict's numbers for a
  /// reviewer, and the assertion's place for annotations.
  public struct FailedComparison: Codable, Sendable, Equatable, Hashable {
    /// SHA-256 of the reference's RGBA8 pixels, written as hex; nil when there was no
    /// reference.
    public var referencePixelSHA256: SHA256Digest?
    /// The comparison's name, such as `exact` or `perceptual(threshold: 0.1)`.
    public var comparison: String
    /// The verdict in one sentence, with its numbers ("37 of 9,600 pixels differ beyond the
    /// perceptual threshold 0.1 …"), or "no reference".
    public var verdict: String
    /// How many pixels differ beyond the comparison's tolerance; nil for a missing reference or
    /// a size change.
    public var differingPixels: Int?
    /// How many pixels the image has; for a comparison with ignored regions, how many it
    /// compared (the image's less the regions'), as its verdict counts them.
    public var totalPixels: Int
    /// The assertion's file, relative to the package root.
    public var file: String
    /// The assertion's line.
    public var line: Int

    /// Creates a record.
    public init(
      referencePixelSHA256: SHA256Digest?, comparison: String, verdict: String,
      differingPixels: Int?, totalPixels: Int, file: String, line: Int
    ) {
      self.referencePixelSHA256 = referencePixelSHA256
      self.comparison = comparison
      self.verdict = verdict
      self.differingPixels = differingPixels
      self.totalPixels = totalPixels
      self.file = file
      self.line = line
    }
  }

  /// One image the run rendered with exactly the pixels of its existing reference, which it
  /// therefore neither encoded nor archived: the reference's trusted pixel digest said so.
  /// `merge-refs` counts it unchanged while the destination file still holds these pixels.
  public struct UnchangedImage: Codable, Sendable, Equatable {
    /// The path relative to the package root, with `/` separators.
    public var path: String
    /// The test that produced it, named as in `images[].test`.
    public var test: String
    /// The case's arguments, as in `images[].testCase`.
    public var testCase: String?
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int
    /// SHA-256 of the rendered RGBA8 pixels, equal to the reference's pixel digest; written as
    /// hex.
    public var pixelSHA256: SHA256Digest
    /// SHA-256 of the reference file's bytes as the run found them, written as hex.
    public var pngSHA256: SHA256Digest
    /// The comparison and bound the test's assertion uses, as in `images[].comparison`: a
    /// variant's file its run left unchanged is redundant when this comparison finds it equal
    /// to its fallback, which the merge cannot tell from the pixel digests alone. Nil in
    /// archives of older versions, read as exact.
    public var comparison: ComparisonRecord?

    /// Creates a record of an unchanged image.
    public init(
      path: String, test: String, width: Int, height: Int, pixelSHA256: SHA256Digest,
      pngSHA256: SHA256Digest, testCase: String? = nil, comparison: ComparisonRecord? = nil
    ) {
      self.path = path
      self.test = test
      self.testCase = testCase
      self.width = width
      self.height = height
      self.pixelSHA256 = pixelSHA256
      self.pngSHA256 = pngSHA256
      self.comparison = comparison
    }

    /// The image's owner for messages, as `Image.owner`.
    public var owner: String { TestName.owner(test: test, testCase: testCase) }
  }
}
