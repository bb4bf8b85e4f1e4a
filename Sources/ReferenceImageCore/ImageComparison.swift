import Foundation

/// A strategy for deciding which pixels of two same-size images differ.
///
/// Pick one of the static strategies, `.exact`, `.tolerance(_:)` or `.perceptual(threshold:)`,
/// and call `compare(_:to:bound:)`:
///
/// ```swift
/// let result = ImageComparison.perceptual(threshold: 0.1)
///   .compare(rendered, to: reference, bound: .requiredAccuracy(0.999))
/// if !result.passed { print(result) }
/// ```
///
/// Any strategy can leave regions out (`ignoring(_:)`) and accept pixels that moved a little
/// (`shiftTolerance(_:)`): `.perceptual().ignoring([clock]).shiftTolerance(1)`.
public struct ImageComparison: Sendable {
  /// A short name for messages, such as "exact", "perceptual (threshold 0.1)" or
  /// "exact, ignoring 1 region, shift tolerance 1".
  public var name: String { baseName + options.nameSuffix }
  /// The strategy's name without its options.
  let baseName: String
  /// What makes a pixel count as different, for a result to say in words.
  let criterion: Criterion
  /// The ignored regions and the shift tolerance; none unless set.
  private(set) var options = ComparisonOptions()
  let scan: @Sendable (PixelScan) -> PixelDifferences

  init(
    name: String, criterion: Criterion, scan: @escaping @Sendable (PixelScan) -> PixelDifferences
  ) {
    baseName = name
    self.criterion = criterion
    self.scan = scan
  }

  /// The regions this comparison does not look at.
  public var ignoredRegions: [IgnoredRegion] { options.ignoredRegions }
  /// How far, in pixels, a pixel may have moved and still match; 0 unless set.
  public var maximumShift: Int { options.shiftTolerance }

  /// The same comparison, not looking at the pixels of `regions` (added to any it ignores
  /// already): they count neither as differing nor as compared, and the difference image draws
  /// them in blue.
  /// - Parameter regions: Rectangles in the image's pixels; parts outside the image are dropped.
  /// - Returns: The comparison with the regions ignored.
  public func ignoring(_ regions: [IgnoredRegion]) -> ImageComparison {
    var copy = self
    copy.options.ignoredRegions += regions
    return copy
  }

  /// The same comparison, also accepting a pixel that matches a pixel of the other image at
  /// most `pixels` away in each direction, for renderers whose text or lines move by a pixel
  /// between platforms. Both ways must match: the render's pixel is found near its position in
  /// the reference, and the reference's pixel near its position in the render, so a line that
  /// moved passes and a line that vanished does not. "Match" is the strategy's own rule (equal
  /// bytes, within the channel tolerance, or within the perceptual threshold). Only pixels that
  /// would count as differing are searched, so a passing comparison pays for its few changed
  /// pixels only.
  /// - Parameter pixels: The distance, 0 (off) to 3.
  /// - Returns: The comparison with the shift tolerance.
  public func shiftTolerance(_ pixels: Int) -> ImageComparison {
    var copy = self
    copy.options.shiftTolerance = min(max(pixels, 0), ComparisonOptions.largestShift)
    return copy
  }

  /// What a strategy counts as a differing pixel, with its parameters.
  enum Criterion: Sendable, Hashable {
    /// Any byte differs.
    case exact
    /// Some channel differs by more than this.
    case tolerance(Int)
    /// The YIQ difference exceeds the threshold, and the pixel is not tolerated as
    /// anti-aliasing (unless anti-aliasing is included).
    case perceptual(threshold: Double, includeAntiAliasing: Bool)
  }

  /// Every byte must match. Identical buffers are recognised by one `memcmp`.
  public static let exact = ImageComparison(name: "exact", criterion: .exact) { scan in
    var tally = DifferenceTally(width: scan.width)
    scan.forEachChangedPixel { index in
      tally.largestChannelDifference = max(
        tally.largestChannelDifference, scan.largestChannelDifference(at: index))
      scan.countDiffering(index, &tally)
    }
    return tally.result(totalPixelCount: scan.count)
  }

  /// A pixel differs when any channel, alpha included, differs by more than the tolerance.
  /// - Parameter maximumChannelDifference: The largest tolerated difference, 0–255.
  /// - Returns: The strategy.
  public static func tolerance(_ maximumChannelDifference: Int) -> ImageComparison {
    let tolerance = min(max(maximumChannelDifference, 0), 255)
    return ImageComparison(name: "tolerance \(tolerance)", criterion: .tolerance(tolerance)) {
      scan in
      var tally = DifferenceTally(width: scan.width)
      scan.forEachChangedPixel { index in
        let difference = scan.largestChannelDifference(at: index)
        tally.largestChannelDifference = max(tally.largestChannelDifference, difference)
        if difference > tolerance {
          scan.countDiffering(index, &tally)
        } else {
          tally.tolerated &+= 1
          scan.mark(index, .tolerated)
        }
      }
      return tally.result(totalPixelCount: scan.count)
    }
  }

  /// Compares two images of any sizes.
  ///
  /// Large images are compared in bands of rows on every core; the counts, the largest channel
  /// difference and the bounding box are the same as one scan's, whatever the number of cores.
  /// - Parameters:
  ///   - image: The image under test.
  ///   - reference: The reference it should match.
  ///   - bound: How many differing pixels are allowed; none unless given.
  /// - Returns: The verdict with its numbers; a size mismatch is a failing result.
  public func compare(
    _ image: RGBAImage, to reference: RGBAImage, bound: DifferenceBound = .none
  ) -> ComparisonResult {
    compare(image, to: reference, bound: bound, bands: nil)
  }

  /// `compare(_:to:bound:)` with a chosen number of bands, so tests can check that the split
  /// never changes a result; `nil` picks it from the image size and the cores.
  package func compare(
    _ image: RGBAImage, to reference: RGBAImage, bound: DifferenceBound, bands: Int?
  ) -> ComparisonResult {
    guard image.width == reference.width, image.height == reference.height else {
      return result(
        .sizeMismatch(actual: image.size, reference: reference.size), allowed: 0, bound: bound)
    }
    let mask = self.mask(width: image.width, height: image.height)
    if image.hasSamePixels(as: reference) {
      return identicalResult(image, mask: mask, bound: bound)
    }
    let plan = BandPlan(width: image.width, height: image.height, bands: bands)
    let found = differences(image, reference, plan: plan, canvas: nil, mask: mask)
    return result(found, bound: bound)
  }

  /// The ignored regions over an image of this size; nil when none covers a pixel.
  func mask(width: Int, height: Int) -> PixelMask? {
    options.ignoredRegions.isEmpty
      ? nil : PixelMask(options.ignoredRegions, width: width, height: height)
  }

  /// The verdict on two images with the same bytes: the bound is still the one of the compared
  /// pixels.
  func identicalResult(_ image: RGBAImage, mask: PixelMask?, bound: DifferenceBound)
    -> ComparisonResult
  {
    let compared = image.pixelCount - (mask?.ignoredPixelCount ?? 0)
    return result(
      .identical, allowed: bound.allowedDifferingPixels(totalPixelCount: compared), bound: bound)
  }

  /// The verdict on differences found between two same-size images.
  func result(_ found: PixelDifferences, bound: DifferenceBound) -> ComparisonResult {
    let allowed = bound.allowedDifferingPixels(totalPixelCount: found.totalPixelCount)
    return result(
      found.differingPixelCount <= allowed ? .withinBound(found) : .differs(found),
      allowed: allowed, bound: bound)
  }

  /// A result of this strategy, carrying what the description needs to say what it counted.
  func result(_ outcome: ComparisonResult.Outcome, allowed: Int, bound: DifferenceBound)
    -> ComparisonResult
  {
    ComparisonResult(
      outcome: outcome, allowedDifferingPixels: allowed, comparisonName: name,
      criterion: criterion, bound: bound, options: options)
  }

  /// Runs the strategy over two same-size images, one band of rows per task on every core,
  /// optionally painting a difference image: each band's rows are drawn as matching pixels
  /// just before its scan, on the same core, and the scan paints the pixels it marks over them
  /// while they are still in that core's cache.
  ///
  /// With a mask, only the compared spans are scanned and the totals count only them; the
  /// canvas paints the ignored spans itself.
  func differences(
    _ image: RGBAImage, _ reference: RGBAImage, plan: BandPlan, canvas: DifferenceCanvas?,
    mask: PixelMask?
  ) -> PixelDifferences {
    precondition(image.width == reference.width && image.height == reference.height)
    let ignored = mask?.ignoredPixelCount ?? 0
    let shift =
      options.shiftTolerance > 0
      ? ShiftMatch(distance: options.shiftTolerance, criterion: criterion) : nil
    var found = image.pixels.withUnsafeBytes { actual in
      reference.pixels.withUnsafeBytes { expected in
        let actualWords = actual.baseAddress!.assumingMemoryBound(to: UInt32.self)
        let expectedWords = expected.baseAddress!.assumingMemoryBound(to: UInt32.self)
        return plan.run(totalPixelCount: image.pixelCount - ignored) { rows in
          canvas?.draw(rows)
          let found = scan(
            PixelScan(
              width: image.width, height: image.height, actual: actualWords,
              reference: expectedWords, canvas: canvas, rows: rows, mask: mask, shift: shift))
          return found
        }
      }
    }
    found.ignoredPixelCount = ignored
    return found
  }
}

extension RGBAImage {
  /// Whether two images have the same size and bytes; one `memcmp`, or none when they share
  /// storage.
  /// - Parameter other: The image to compare with.
  /// - Returns: True when every byte matches.
  public func hasSamePixels(as other: RGBAImage) -> Bool {
    guard width == other.width, height == other.height else { return false }
    return pixels.withUnsafeBytes { mine in
      other.pixels.withUnsafeBytes { theirs in
        mine.baseAddress == theirs.baseAddress
          || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0
      }
    }
  }
}
