extension ImageComparison {
  /// Draws where two images differ, for a person to look at.
  ///
  /// Matching pixels are the reference dimmed to a dark grey, so the shapes stay recognisable;
  /// pixels the strategy tolerates show their absolute channel difference (anti-aliasing in
  /// dark yellow); pixels it counts as different are bright red. For images of different sizes
  /// the canvas is the union of both, and every pixel that only one image covers is red.
  /// - Parameters:
  ///   - image: The image under test.
  ///   - reference: The reference.
  /// - Returns: The difference image.
  public func differenceImage(_ image: RGBAImage, _ reference: RGBAImage) -> RGBAImage {
    compareWithDifferenceImage(image, to: reference).differenceImage
  }

  /// Compares two images and draws their difference image (see `differenceImage(_:_:)`) in the
  /// same scan: each band of rows is drawn from the marks its comparison just made, on the same
  /// core, so a failing comparison costs one pass, not a comparison and then a second one.
  /// - Parameters:
  ///   - image: The image under test.
  ///   - reference: The reference it should match.
  ///   - bound: How many differing pixels are allowed; none unless given.
  /// - Returns: The verdict, as `compare(_:to:bound:)` gives it, and the difference image.
  public func compareWithDifferenceImage(
    _ image: RGBAImage, to reference: RGBAImage, bound: DifferenceBound = .none
  ) -> (result: ComparisonResult, differenceImage: RGBAImage) {
    compareWithDifferenceImage(image, to: reference, bound: bound, bands: nil)
  }

  /// `compareWithDifferenceImage(_:to:bound:)` with a chosen number of bands, for tests.
  package func compareWithDifferenceImage(
    _ image: RGBAImage, to reference: RGBAImage, bound: DifferenceBound, bands: Int?
  ) -> (result: ComparisonResult, differenceImage: RGBAImage) {
    let width = max(image.width, reference.width)
    let height = max(image.height, reference.height)
    let overlapWidth = min(image.width, reference.width)
    let overlapHeight = min(image.height, reference.height)
    let actual = image.cropped(width: overlapWidth, height: overlapHeight)
    let expected = reference.cropped(width: overlapWidth, height: overlapHeight)
    let plan = BandPlan(width: overlapWidth, height: overlapHeight, bands: bands)
    let identical = actual.hasSamePixels(as: expected)

    var output = try! RGBAImage(width: width, height: height, color: DifferenceColors.differing)
    let marks = UnsafeMutablePointer<UInt8>.allocate(capacity: overlapWidth * overlapHeight)
    defer { marks.deallocate() }
    let found = output.withUnsafeMutablePixelBytes { out in
      actual.pixels.withUnsafeBytes { a in
        expected.pixels.withUnsafeBytes { b in
          let canvas = DifferenceCanvas(
            output: out.baseAddress!.assumingMemoryBound(to: UInt32.self), outputWidth: width,
            width: overlapWidth, actual: a.baseAddress!.assumingMemoryBound(to: UInt8.self),
            reference: b.baseAddress!.assumingMemoryBound(to: UInt8.self), marks: marks)
          if identical {
            return plan.run(totalPixelCount: actual.pixelCount) { rows in
              canvas.clearMarks(rows)
              canvas.draw(rows)
              return .identical(totalPixelCount: actual.pixelCount)
            }
          }
          return differences(actual, expected, plan: plan, marks: marks) { rows in
            canvas.draw(rows)
          } prepareBand: { rows in
            canvas.clearMarks(rows)
          }
        }
      }
    }
    let result: ComparisonResult
    if image.width != reference.width || image.height != reference.height {
      result = ComparisonResult(
        outcome: .sizeMismatch(actual: image.size, reference: reference.size),
        allowedDifferingPixels: 0, comparisonName: name)
    } else {
      let allowed = bound.allowedDifferingPixels(totalPixelCount: image.pixelCount)
      result =
        identical
        ? ComparisonResult(
          outcome: .identical, allowedDifferingPixels: allowed, comparisonName: name)
        : self.result(found, allowed: allowed)
    }
    return (result, output)
  }
}

/// Where a difference image is drawn: the output canvas, the overlapping part of the two
/// images and the comparison's marks. Each band draws only its own rows.
struct DifferenceCanvas {
  let output: UnsafeMutablePointer<UInt32>
  let outputWidth: Int
  let width: Int
  let actual: UnsafePointer<UInt8>
  let reference: UnsafePointer<UInt8>
  let marks: UnsafeMutablePointer<UInt8>

  /// Marks every pixel of the rows `.same`, before a scan marks the ones it finds.
  func clearMarks(_ rows: Range<Int>) {
    (marks + rows.lowerBound &* width).update(repeating: 0, count: rows.count &* width)
  }

  /// Draws the rows from their marks.
  func draw(_ rows: Range<Int>) {
    for y in rows {
      let row = y &* width
      let target = output + y &* outputWidth
      for x in 0..<width {
        let index = row &+ x
        let source = index &* 4
        let mark = marks[index]
        let color: RGBAColor
        if mark == PixelMark.same.rawValue {
          color = DifferenceColors.dimmed(
            red: reference[source], green: reference[source &+ 1], blue: reference[source &+ 2],
            alpha: reference[source &+ 3])
        } else {
          color = DifferenceColors.color(
            PixelMark(rawValue: mark) ?? .differing,
            RGBAColor(
              red: actual[source], green: actual[source &+ 1], blue: actual[source &+ 2],
              alpha: actual[source &+ 3]),
            RGBAColor(
              red: reference[source], green: reference[source &+ 1],
              blue: reference[source &+ 2], alpha: reference[source &+ 3]))
        }
        target[x] = color.packed
      }
    }
  }
}

/// The palette of difference images.
enum DifferenceColors {
  static let differing = RGBAColor(red: 255, green: 0, blue: 0)

  static func color(_ mark: PixelMark, _ actual: RGBAColor, _ reference: RGBAColor) -> RGBAColor {
    switch mark {
    case .same:
      return dimmed(
        red: reference.red, green: reference.green, blue: reference.blue, alpha: reference.alpha)
    case .tolerated:
      // Scaled to at most 191 so a tolerated difference never looks like the pure red of a
      // counted one.
      return RGBAColor(
        red: dimmed(absoluteDifference(actual.red, reference.red)),
        green: dimmed(absoluteDifference(actual.green, reference.green)),
        blue: dimmed(absoluteDifference(actual.blue, reference.blue)))
    case .antiAliased:
      return RGBAColor(red: 128, green: 128, blue: 0)
    case .differing:
      return differing
    }
  }

  /// A matching pixel: the luma of the reference over black, at a quarter brightness.
  @inline(__always)
  static func dimmed(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) -> RGBAColor {
    let luma = (299 &* Int(red) &+ 587 &* Int(green) &+ 114 &* Int(blue)) / 1000
    let gray = UInt8(truncatingIfNeeded: luma &* Int(alpha) / 255 / 4)
    return RGBAColor(red: gray, green: gray, blue: gray)
  }

  static func dimmed(_ value: UInt8) -> UInt8 { UInt8(Int(value) * 3 / 4) }

  static func absoluteDifference(_ a: UInt8, _ b: UInt8) -> UInt8 { a > b ? a - b : b - a }
}

extension RGBAImage {
  /// The top-left `width` × `height` part of the image; the image itself when the size matches.
  package func cropped(width newWidth: Int, height newHeight: Int) -> RGBAImage {
    if newWidth == width && newHeight == height { return self }
    var bytes = [UInt8]()
    bytes.reserveCapacity(newWidth * newHeight * 4)
    for y in 0..<newHeight {
      let start = y * width * 4
      bytes.append(contentsOf: pixels[start..<(start + newWidth * 4)])
    }
    return try! RGBAImage(width: newWidth, height: newHeight, pixels: bytes)
  }
}
