import Foundation

/// How a comparison splits an image into bands of whole rows, one task each, run on every core.
///
/// Bands hold about 64 Ki pixels: small enough that a band's two source rows and its
/// difference-image rows stay in a core's cache between the drawing and the scan, and many
/// enough that a core that finishes early takes the next band. Images under 128 Ki pixels are
/// one band, scanned on the calling thread, where starting tasks would cost more than it saves.
package struct BandPlan {
  package let height: Int
  /// The number of bands.
  package let count: Int

  static let pixelsPerBand = 1 << 16

  /// - Parameters:
  ///   - width: The image width.
  ///   - height: The image height.
  ///   - bands: A forced number of bands (clamped to 1…height), or `nil` for the automatic one.
  package init(width: Int, height: Int, bands: Int?) {
    self.height = height
    let automatic = (width * height) / Self.pixelsPerBand
    count = min(max(bands ?? (automatic >= 2 ? automatic : 1), 1), height)
  }

  /// The rows of band `index`: consecutive, together covering every row once.
  package func rows(_ index: Int) -> Range<Int> {
    (index * height / count)..<((index + 1) * height / count)
  }

  /// Runs `scan` for every band, concurrently when there are several, and merges the results.
  func run(
    totalPixelCount: Int, _ scan: (Range<Int>) -> PixelDifferences
  ) -> PixelDifferences {
    if count == 1 {
      return PixelDifferences.merged([scan(0..<height)], totalPixelCount: totalPixelCount)
    }
    let results = UnsafeMutableBufferPointer<PixelDifferences>.allocate(capacity: count)
    defer {
      results.baseAddress!.deinitialize(count: count)
      results.deallocate()
    }
    withoutActuallyEscaping(scan) { scan in
      // Each task initialises only its own slot.
      nonisolated(unsafe) let slots = results
      nonisolated(unsafe) let scan = scan
      DispatchQueue.concurrentPerform(iterations: count) { index in
        (slots.baseAddress! + index).initialize(to: scan(rows(index)))
      }
    }
    return PixelDifferences.merged(Array(results), totalPixelCount: totalPixelCount)
  }
}
