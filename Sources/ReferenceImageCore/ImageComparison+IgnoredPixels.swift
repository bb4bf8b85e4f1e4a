extension ImageComparison {
  /// The image with the pixels of the ignored regions taken from the reference, where both
  /// images cover them: what the comparison saw, for saying what kind of change each region is
  /// and grouping them, so a clock inside a mask changes neither a region's kind nor its group.
  /// The image itself when the comparison ignores nothing.
  /// - Parameters:
  ///   - image: The image under test.
  ///   - reference: Its reference; of any size.
  /// - Returns: The image as compared.
  public func asCompared(_ image: RGBAImage, reference: RGBAImage) -> RGBAImage {
    let width = min(image.width, reference.width)
    let height = min(image.height, reference.height)
    guard let mask = mask(width: width, height: height) else { return image }
    var compared = image
    for run in mask.runs {
      for y in run.rows {
        var x = 0
        // The columns between (and around) the compared spans are the ignored ones.
        for span in run.compared + [width..<width] {
          copyRow(y, columns: x..<span.lowerBound, from: reference, into: &compared)
          x = span.upperBound
        }
      }
    }
    return compared
  }

  private func copyRow(
    _ y: Int, columns: Range<Int>, from reference: RGBAImage, into image: inout RGBAImage
  ) {
    guard !columns.isEmpty else { return }
    let from = (y * reference.width + columns.lowerBound) * 4
    let to = (y * image.width + columns.lowerBound) * 4
    image.pixels.replaceSubrange(
      to..<(to + columns.count * 4), with: reference.pixels[from..<(from + columns.count * 4)])
  }
}
