import ReferenceImageCore

/// Changes a fraction of an image's pixels the way a new toolchain, font or rasteriser does:
/// in small clusters, mostly on edges, mostly by a few levels, sometimes by a lot.
///
/// Comparison speed depends on how changes are spread (the scan skips identical 8-pixel runs,
/// and the perceptual detector looks at the neighbours of every clearly changed pixel), so
/// evenly scattered single pixels or one changed block would both misrepresent real drift.
enum RenderDrift {
  /// The image with exactly `round(fraction × pixelCount)` pixels changed.
  /// - Parameters:
  ///   - image: The original.
  ///   - fraction: The share of pixels to change, for example 0.01.
  ///   - seed: Makes the result reproducible.
  /// - Returns: The drifted image.
  static func apply(to image: RGBAImage, fraction: Double, seed: UInt64) -> RGBAImage {
    var random = SplitMix64(seed: seed)
    let width = image.width
    let height = image.height
    let source = image.pixels
    var pixels = image.pixels
    var changed = [Bool](repeating: false, count: width * height)
    let target = Int((Double(width * height) * fraction).rounded())
    var count = 0

    func isEdge(_ x: Int, _ y: Int) -> Bool {
      guard x + 1 < width, y + 1 < height else { return false }
      let offset = (y * width + x) * 4
      for channel in 0..<3 {
        if source[offset + channel] != source[offset + 4 + channel]
          || source[offset + channel] != source[offset + width * 4 + channel]
        {
          return true
        }
      }
      return false
    }

    while count < target {
      var x = Int(random.next() % UInt64(width))
      var y = Int(random.next() % UInt64(height))
      // Seven clusters in ten sit on an edge (anti-aliasing and glyph positions drift first).
      if random.next() % 10 < 7 {
        for _ in 0..<64 where !isEdge(x, y) {
          x = Int(random.next() % UInt64(width))
          y = Int(random.next() % UInt64(height))
        }
      }
      let clusterWidth = 1 + Int(random.next() % 5)
      let clusterHeight = 1 + Int(random.next() % 5)
      // 75% drift by 1–3 levels, 18% by 6–40, 7% by 80–200 (a glyph moved by a pixel).
      let kind = random.next() % 100
      let magnitude: Int
      if kind < 75 {
        magnitude = 1 + Int(random.next() % 3)
      } else if kind < 93 {
        magnitude = 6 + Int(random.next() % 35)
      } else {
        magnitude = 80 + Int(random.next() % 121)
      }
      let sign = random.next() % 2 == 0 ? 1 : -1
      for row in y..<min(y + clusterHeight, height) {
        for column in x..<min(x + clusterWidth, width) where count < target {
          let index = row * width + column
          guard !changed[index] else { continue }
          let offset = index * 4
          var direction = sign
          for _ in 0..<2 {
            var differs = false
            for channel in 0..<3 {
              let jitter = magnitude > 3 ? Int(random.next() % 3) - 1 : 0
              let value = Int(source[offset + channel]) + direction * (magnitude + jitter)
              let clamped = UInt8(max(0, min(255, value)))
              pixels[offset + channel] = clamped
              if clamped != source[offset + channel] { differs = true }
            }
            if differs { break }
            // Clamped away at black or white: drift the other way.
            direction = -direction
          }
          changed[index] = true
          count += 1
        }
      }
    }
    return try! RGBAImage(width: width, height: height, pixels: pixels)
  }
}
