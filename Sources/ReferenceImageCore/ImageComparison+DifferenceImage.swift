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
    let width = max(image.width, reference.width)
    let height = max(image.height, reference.height)
    let overlapWidth = min(image.width, reference.width)
    let overlapHeight = min(image.height, reference.height)
    let actual = image.cropped(width: overlapWidth, height: overlapHeight)
    let expected = reference.cropped(width: overlapWidth, height: overlapHeight)

    var marks = [UInt8](repeating: 0, count: overlapWidth * overlapHeight)
    _ = marks.withUnsafeMutableBufferPointer { buffer in
      differences(actual, expected, marks: buffer.baseAddress)
    }
    var output = try! RGBAImage(width: width, height: height, color: DifferenceColors.differing)
    // Raw buffers: the checked subscript costs more than the colour arithmetic here.
    output.withUnsafeMutablePixelBytes { out in
      actual.pixels.withUnsafeBufferPointer { a in
        expected.pixels.withUnsafeBufferPointer { b in
          for y in 0..<overlapHeight {
            for x in 0..<overlapWidth {
              let index = y &* overlapWidth &+ x
              let source = index &* 4
              let mark = PixelMark(rawValue: marks[index]) ?? .differing
              let color = DifferenceColors.color(
                mark,
                RGBAColor(
                  red: a[source], green: a[source + 1], blue: a[source + 2], alpha: a[source + 3]),
                RGBAColor(
                  red: b[source], green: b[source + 1], blue: b[source + 2], alpha: b[source + 3]))
              let target = (y &* width &+ x) &* 4
              out[target] = color.red
              out[target + 1] = color.green
              out[target + 2] = color.blue
              out[target + 3] = color.alpha
            }
          }
        }
      }
    }
    return output
  }
}

/// The palette of difference images.
enum DifferenceColors {
  static let differing = RGBAColor(red: 255, green: 0, blue: 0)

  static func color(_ mark: PixelMark, _ actual: RGBAColor, _ reference: RGBAColor) -> RGBAColor {
    switch mark {
    case .same:
      // Luma of the reference over black, at a quarter brightness.
      let luma =
        (299 * Int(reference.red) + 587 * Int(reference.green) + 114 * Int(reference.blue)) / 1000
      let gray = UInt8(luma * Int(reference.alpha) / 255 / 4)
      return RGBAColor(red: gray, green: gray, blue: gray)
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

  static func dimmed(_ value: UInt8) -> UInt8 { UInt8(Int(value) * 3 / 4) }

  static func absoluteDifference(_ a: UInt8, _ b: UInt8) -> UInt8 { a > b ? a - b : b - a }
}

extension RGBAImage {
  /// The top-left `width` × `height` part of the image; the image itself when the size matches.
  func cropped(width newWidth: Int, height newHeight: Int) -> RGBAImage {
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
