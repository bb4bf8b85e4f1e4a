extension ImageComparison {
  /// pixelmatch's perceptual comparison: a pixel differs when its YIQ colour difference exceeds
  /// the threshold and it is not anti-aliasing.
  ///
  /// This follows mapbox/pixelmatch 7.x (and Playwright's `threshold`) so numbers carry over:
  /// translucent pixels are blended over 7.x's checkerboard, and a pixel that looks like an
  /// anti-aliased edge in either image (Vysniauskas's detector) is tolerated unless
  /// `includeAntiAliasing` is true.
  /// - Parameters:
  ///   - threshold: 0 (any difference counts) to 1 (nothing counts); pixelmatch's default 0.1.
  ///   - includeAntiAliasing: Count anti-aliased pixels as differences too (pixelmatch's
  ///     `includeAA`).
  /// - Returns: The strategy.
  public static func perceptual(threshold: Double = 0.1, includeAntiAliasing: Bool = false)
    -> ImageComparison
  {
    let maximumDelta = maximumDelta(threshold: threshold)
    return ImageComparison(
      name: "perceptual (threshold \(threshold))",
      criterion: .perceptual(threshold: threshold, includeAntiAliasing: includeAntiAliasing)
    ) { scan in
      withUnsafeTemporaryAllocation(
        of: Int.self, capacity: PerceptualBandScan.pendingCapacity(width: scan.width)
      ) { pending in
        var band = PerceptualBandScan(
          scan: scan, maximumDelta: maximumDelta, includeAntiAliasing: includeAntiAliasing,
          pending: pending)
        return band.run()
      }
    }
  }

  /// The largest YIQ difference a threshold tolerates, as pixelmatch computes it.
  static func maximumDelta(threshold: Double) -> Double {
    // 35215 is the largest possible value of the YIQ difference metric.
    35215 * threshold * threshold
  }
}

/// The colour metric and anti-aliasing detector of pixelmatch 7.x, kept in the same arithmetic
/// order so counts agree exactly.
enum YIQ {
  /// The squared YIQ distance between pixels at byte offsets `k` and `m` (negative when the
  /// second is darker in pixelmatch's sign convention), or the brightness difference alone.
  ///
  /// Translucent pixels are blended over a checkerboard whose colours depend on `k`, as 7.x does.
  @inline(__always)
  static func colorDelta(
    _ image1: UnsafePointer<UInt8>, _ image2: UnsafePointer<UInt8>, _ k: Int, _ m: Int,
    brightnessOnly: Bool
  ) -> Double {
    let r1 = Double(image1[k])
    let g1 = Double(image1[k &+ 1])
    let b1 = Double(image1[k &+ 2])
    let a1 = Double(image1[k &+ 3])
    let r2 = Double(image2[m])
    let g2 = Double(image2[m &+ 1])
    let b2 = Double(image2[m &+ 2])
    let a2 = Double(image2[m &+ 3])

    var dr = r1 - r2
    var dg = g1 - g2
    var db = b1 - b2
    let da = a1 - a2
    if dr == 0 && dg == 0 && db == 0 && da == 0 { return 0 }

    if a1 < 255 || a2 < 255 {
      let background = checkerboard(k)
      dr = (r1 * a1 - r2 * a2 - background.red * da) / 255
      dg = (g1 * a1 - g2 * a2 - background.green * da) / 255
      db = (b1 * a1 - b2 * a2 - background.blue * da) / 255
    }

    let y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223
    if brightnessOnly { return y }
    let i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189
    let q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694
    let delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
    return y > 0 ? -delta : delta
  }

  /// Whether the pixel at (x, y) looks like anti-aliasing in either image, as pixelmatch
  /// decides before tolerating a clearly changed pixel.
  @inline(__always)
  static func isAntiAliasedInEither(_ scan: PixelScan, _ x: Int, _ y: Int) -> Bool {
    let (width, height) = (scan.width, scan.height)
    if x > 0 && y > 0 && x < width &- 1 && y < height &- 1 {
      return isAntiAliasedInterior(scan.actual, x, y, width, height, scan.actual, scan.reference)
        || isAntiAliasedInterior(
          scan.reference, x, y, width, height, scan.reference, scan.actual)
    }
    let a = scan.actualBytes
    let b = scan.referenceBytes
    return isAntiAliased(a, x, y, width, height, scan.actual, scan.reference)
      || isAntiAliased(b, x, y, width, height, scan.reference, scan.actual)
  }

  /// Whether the pixel at (x1, y1) of `image` looks like anti-aliasing: among its neighbours it
  /// has both a darker and a brighter one, at most two equal ones, and the darkest or brightest
  /// neighbour sits in a flat area of both images.
  @inline(never)
  static func isAntiAliased(
    _ image: UnsafePointer<UInt8>, _ x1: Int, _ y1: Int, _ width: Int, _ height: Int,
    _ words1: UnsafePointer<UInt32>, _ words2: UnsafePointer<UInt32>
  ) -> Bool {
    let x0 = max(x1 - 1, 0)
    let y0 = max(y1 - 1, 0)
    let x2 = min(x1 + 1, width - 1)
    let y2 = min(y1 + 1, height - 1)
    let position = (y1 * width + x1) * 4
    var zeroes = (x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2) ? 1 : 0
    var darkest = 0.0
    var brightest = 0.0
    var darkestX = 0
    var darkestY = 0
    var brightestX = 0
    var brightestY = 0

    for x in x0...x2 {
      for y in y0...y2 where x != x1 || y != y1 {
        let delta = colorDelta(image, image, position, (y * width + x) * 4, brightnessOnly: true)
        if delta == 0 {
          zeroes += 1
          if zeroes > 2 { return false }
        } else if delta < darkest {
          darkest = delta
          darkestX = x
          darkestY = y
        } else if delta > brightest {
          brightest = delta
          brightestX = x
          brightestY = y
        }
      }
    }
    if darkest == 0 || brightest == 0 { return false }
    return
      (hasManySiblings(words1, darkestX, darkestY, width, height)
      && hasManySiblings(words2, darkestX, darkestY, width, height))
      || (hasManySiblings(words1, brightestX, brightestY, width, height)
        && hasManySiblings(words2, brightestX, brightestY, width, height))
  }

  /// Whether the pixel at (x1, y1) has three or more neighbours of exactly its colour.
  static func hasManySiblings(
    _ words: UnsafePointer<UInt32>, _ x1: Int, _ y1: Int, _ width: Int, _ height: Int
  ) -> Bool {
    let x0 = max(x1 - 1, 0)
    let y0 = max(y1 - 1, 0)
    let x2 = min(x1 + 1, width - 1)
    let y2 = min(y1 + 1, height - 1)
    let value = words[y1 * width + x1]
    var zeroes = (x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2) ? 1 : 0
    for x in x0...x2 {
      for y in y0...y2 where x != x1 || y != y1 {
        if words[y * width + x] == value { zeroes += 1 }
        if zeroes > 2 { return true }
      }
    }
    return false
  }
}
