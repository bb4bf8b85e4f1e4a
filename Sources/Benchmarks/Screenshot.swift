import ReferenceImageCore

/// Synthetic screenshot-like images, deterministic for a seed, so every run measures the same
/// pixels and the figures of two runs can be compared.
///
/// A real render test's image is mostly flat: UI backgrounds, panels and cards; then gradients
/// (banners, shadows), anti-aliased shapes (rounded corners, pie charts, line charts), a lot of
/// small text whose glyph edges are anti-aliased, and now and then a photo. Compression and
/// comparison speed both depend on that mix, so the fixture reproduces it rather than using
/// noise or a solid colour.
struct Screenshot {
  let width: Int
  let height: Int
  private(set) var pixels: [UInt8]
  private var random: SplitMix64
  /// How far headings, menu items and labels move right and chart lines move down, in pixels:
  /// 1 gives the render a changed font metric or layout rounding makes, where glyph edges and
  /// thin lines change by far more than the perceptual threshold.
  private let shift: Int

  /// Draws the whole screenshot.
  /// - Parameters:
  ///   - width: The width in pixels.
  ///   - height: The height in pixels.
  ///   - seed: Decides the layout, text and charts.
  ///   - shift: Moves short texts (headings, menu items, labels) right and chart lines down by
  ///     this many pixels, leaving everything else (and the random layout) as it is.
  init(width: Int, height: Int, seed: UInt64, shift: Int = 0) {
    self.width = width
    self.height = height
    self.pixels = [UInt8](repeating: 0, count: width * height * 4)
    self.random = SplitMix64(seed: seed)
    self.shift = shift
    draw()
  }

  var image: RGBAImage { try! RGBAImage(width: width, height: height, pixels: pixels) }

  // MARK: Layout

  private mutating func draw() {
    let background = Color(247, 247, 248)
    fill(x: 0, y: 0, width: width, height: height, background)
    let titleHeight = min(64, height)
    verticalGradient(
      x: 0, y: 0, width: width, height: titleHeight, Color(40, 44, 52), Color(62, 68, 80))
    text(x: 24, y: 24, maxX: width / 2, maxY: titleHeight, lines: 1, Color(250, 250, 250))

    let sidebarWidth = min(320, width / 4)
    fill(
      x: 0, y: titleHeight, width: sidebarWidth, height: height - titleHeight, Color(233, 236, 240))
    var itemY = titleHeight + 24
    var item = 0
    while itemY + 24 < height {
      if item == 3 {
        roundedRect(
          x: 12, y: itemY - 8, width: sidebarWidth - 24, height: 32, radius: 6, Color(0, 112, 243))
        text(x: 28, y: itemY, maxX: sidebarWidth - 24, maxY: itemY + 16, lines: 1, .white)
      } else {
        text(
          x: 28, y: itemY, maxX: sidebarWidth - 40, maxY: itemY + 16, lines: 1, Color(52, 58, 64))
      }
      itemY += 40
      item += 1
    }

    let contentX = sidebarWidth + 32
    let contentWidth = width - contentX - 32
    guard contentWidth > 64 else { return }
    let bannerHeight = min(240, height / 8)
    diagonalGradient(
      x: contentX, y: titleHeight + 32, width: contentWidth, height: bannerHeight,
      Color(30, 90, 220), Color(140, 60, 200))
    text(
      x: contentX + 32, y: titleHeight + 72, maxX: contentX + contentWidth / 2,
      maxY: titleHeight + 32 + bannerHeight - 24, lines: 3, .white)

    // A grid of cards: text, a pie chart, a line chart and a photo.
    let columns = 3
    let gap = 32
    let cardWidth = (contentWidth - gap * (columns - 1)) / columns
    let cardHeight = 420
    var cardY = titleHeight + 32 + bannerHeight + gap
    var card = 0
    while cardY + cardHeight <= height - 16 {
      for column in 0..<columns {
        let cardX = contentX + column * (cardWidth + gap)
        roundedRect(
          x: cardX - 1, y: cardY - 1, width: cardWidth + 2, height: cardHeight + 2, radius: 12,
          Color(214, 218, 224))
        roundedRect(
          x: cardX, y: cardY, width: cardWidth, height: cardHeight, radius: 11, .white)
        text(
          x: cardX + 20, y: cardY + 20, maxX: cardX + cardWidth - 20, maxY: cardY + 40, lines: 1,
          Color(20, 24, 28))
        let bodyY = cardY + 56
        let bodyHeight = cardHeight - 76
        switch card % 6 {
        case 1:
          pie(centerX: cardX + cardWidth / 2, centerY: bodyY + bodyHeight / 2, radius: 130)
        case 3:
          lineChart(x: cardX + 20, y: bodyY, width: cardWidth - 40, height: bodyHeight)
        case 5:
          photo(x: cardX + 20, y: bodyY, width: cardWidth - 40, height: bodyHeight / 2)
          text(
            x: cardX + 20, y: bodyY + bodyHeight / 2 + 16, maxX: cardX + cardWidth - 20,
            maxY: bodyY + bodyHeight, lines: 20, Color(73, 80, 87))
        default:
          text(
            x: cardX + 20, y: bodyY, maxX: cardX + cardWidth - 20, maxY: bodyY + bodyHeight,
            lines: 40, Color(73, 80, 87))
        }
        card += 1
      }
      cardY += cardHeight + gap
    }
  }

  // MARK: Primitives

  struct Color {
    var red: Double
    var green: Double
    var blue: Double

    init(_ red: Double, _ green: Double, _ blue: Double) {
      self.red = red
      self.green = green
      self.blue = blue
    }

    static let white = Color(255, 255, 255)

    func mixed(with other: Color, _ t: Double) -> Color {
      Color(
        red + (other.red - red) * t, green + (other.green - green) * t,
        blue + (other.blue - blue) * t)
    }
  }

  /// Blends `color` over the pixel with a coverage of 0…1, rounding like a rasteriser would.
  @inline(__always)
  private mutating func blend(_ x: Int, _ y: Int, _ color: Color, _ coverage: Double) {
    guard x >= 0, y >= 0, x < width, y < height, coverage > 0 else { return }
    let offset = (y * width + x) * 4
    let c = min(coverage, 1)
    func mix(_ old: UInt8, _ new: Double) -> UInt8 {
      UInt8(max(0, min(255, (Double(old) * (1 - c) + new * c).rounded())))
    }
    pixels[offset] = mix(pixels[offset], color.red)
    pixels[offset + 1] = mix(pixels[offset + 1], color.green)
    pixels[offset + 2] = mix(pixels[offset + 2], color.blue)
    pixels[offset + 3] = 255
  }

  private mutating func fill(x: Int, y: Int, width w: Int, height h: Int, _ color: Color) {
    for row in max(y, 0)..<min(y + h, height) {
      for column in max(x, 0)..<min(x + w, width) { blend(column, row, color, 1) }
    }
  }

  private mutating func verticalGradient(
    x: Int, y: Int, width w: Int, height h: Int, _ top: Color, _ bottom: Color
  ) {
    for row in max(y, 0)..<min(y + h, height) {
      let color = top.mixed(with: bottom, Double(row - y) / Double(max(h - 1, 1)))
      for column in max(x, 0)..<min(x + w, width) { blend(column, row, color, 1) }
    }
  }

  private mutating func diagonalGradient(
    x: Int, y: Int, width w: Int, height h: Int, _ start: Color, _ end: Color
  ) {
    for row in max(y, 0)..<min(y + h, height) {
      for column in max(x, 0)..<min(x + w, width) {
        let t = (Double(column - x) / Double(w) * 0.8 + Double(row - y) / Double(h) * 0.2)
        let inside = roundedRectCoverage(
          Double(column) + 0.5, Double(row) + 0.5, x: x, y: y, width: w, height: h, radius: 16)
        blend(column, row, start.mixed(with: end, t), inside)
      }
    }
  }

  /// Coverage of a pixel centre by a rounded rectangle: one pixel of anti-aliasing at the edge.
  private func roundedRectCoverage(
    _ px: Double, _ py: Double, x: Int, y: Int, width w: Int, height h: Int, radius: Double
  ) -> Double {
    let halfWidth = Double(w) / 2
    let halfHeight = Double(h) / 2
    let dx = abs(px - (Double(x) + halfWidth)) - (halfWidth - radius)
    let dy = abs(py - (Double(y) + halfHeight)) - (halfHeight - radius)
    let outside = (max(dx, 0) * max(dx, 0) + max(dy, 0) * max(dy, 0)).squareRoot()
    let distance = outside + min(max(dx, dy), 0) - radius
    return max(0, min(1, 0.5 - distance))
  }

  private mutating func roundedRect(
    x: Int, y: Int, width w: Int, height h: Int, radius: Double, _ color: Color
  ) {
    for row in max(y, 0)..<min(y + h, height) {
      for column in max(x, 0)..<min(x + w, width) {
        let coverage = roundedRectCoverage(
          Double(column) + 0.5, Double(row) + 0.5, x: x, y: y, width: w, height: h, radius: radius)
        blend(column, row, color, coverage)
      }
    }
  }

  /// Lines of words set in a made-up anti-aliased font, wrapped at `maxX`.
  private mutating func text(
    x: Int, y: Int, maxX: Int, maxY: Int, lines: Int, _ color: Color
  ) {
    var lineY = y
    var line = 0
    // Headings, menu items and labels move; paragraphs stay, so about 1% of pixels change.
    let dx = lines <= 3 ? shift : 0
    while line < lines && lineY + Glyphs.height <= maxY {
      var penX = x
      // Ragged right margins, like real paragraphs.
      let lineEnd = maxX - Int(random.next() % UInt64(max((maxX - x) / 4, 1)))
      while penX + Glyphs.width <= lineEnd {
        let wordLength = 2 + Int(random.next() % 8)
        for _ in 0..<wordLength where penX + Glyphs.width <= lineEnd {
          let glyph = Int(random.next() % UInt64(Glyphs.shared.count))
          for gy in 0..<Glyphs.height {
            for gx in 0..<Glyphs.width {
              let coverage = Glyphs.shared.coverage(glyph, gx, gy)
              if coverage > 0 { blend(penX + gx + dx, lineY + gy, color, coverage) }
            }
          }
          penX += Glyphs.width - 1
        }
        penX += Glyphs.width / 2 + 1
      }
      lineY += Glyphs.height + 6
      line += 1
    }
  }

  private mutating func pie(centerX: Int, centerY: Int, radius: Double) {
    let colors = [
      Color(0, 112, 243), Color(255, 159, 28), Color(46, 196, 182), Color(231, 29, 54),
      Color(130, 90, 220),
    ]
    let shares = [0.34, 0.22, 0.18, 0.15, 0.11]
    let r = Int(radius) + 2
    for row in (centerY - r)...(centerY + r) {
      for column in (centerX - r)...(centerX + r) {
        let dx = Double(column) + 0.5 - Double(centerX)
        let dy = Double(row) + 0.5 - Double(centerY)
        let distance = (dx * dx + dy * dy).squareRoot()
        let coverage = max(0, min(1, radius + 0.5 - distance))
        guard coverage > 0 else { continue }
        var angle = (atan2Approximation(dy, dx) / (2 * Double.pi)) + 0.5
        var slice = 0
        while slice < shares.count - 1 && angle > shares[slice] {
          angle -= shares[slice]
          slice += 1
        }
        blend(column, row, colors[slice], coverage)
      }
    }
  }

  private mutating func lineChart(x: Int, y: Int, width w: Int, height h: Int) {
    // Axes and grid lines: crisp one-pixel lines.
    for step in 0...4 {
      let gridY = y + step * (h - 1) / 4 + shift
      fill(x: x, y: gridY, width: w, height: 1, Color(225, 228, 232))
    }
    fill(x: x + shift, y: y, width: 1, height: h, Color(160, 166, 172))
    var points: [(Double, Double)] = []
    var value = 0.5
    for index in 0...24 {
      value = max(0.05, min(0.95, value + (Double(random.next() % 1000) / 1000 - 0.5) * 0.3))
      points.append(
        (
          Double(x) + Double(index) * Double(w - 1) / 24,
          Double(y + shift) + value * Double(h)
        ))
    }
    for (start, end) in zip(points, points.dropFirst()) {
      segment(start, end, thickness: 2.2, Color(0, 112, 243))
    }
  }

  /// An anti-aliased line segment: coverage falls off over one pixel at its sides.
  private mutating func segment(
    _ a: (Double, Double), _ b: (Double, Double), thickness: Double, _ color: Color
  ) {
    let minX = Int(min(a.0, b.0) - thickness - 1)
    let maxX = Int(max(a.0, b.0) + thickness + 1)
    let minY = Int(min(a.1, b.1) - thickness - 1)
    let maxY = Int(max(a.1, b.1) + thickness + 1)
    let vx = b.0 - a.0
    let vy = b.1 - a.1
    let lengthSquared = max(vx * vx + vy * vy, 1e-9)
    for row in minY...maxY {
      for column in minX...maxX {
        let px = Double(column) + 0.5 - a.0
        let py = Double(row) + 0.5 - a.1
        let t = max(0, min(1, (px * vx + py * vy) / lengthSquared))
        let dx = px - t * vx
        let dy = py - t * vy
        let distance = (dx * dx + dy * dy).squareRoot()
        blend(column, row, color, max(0, min(1, thickness / 2 + 0.5 - distance)))
      }
    }
  }

  /// A smooth "photo": bilinear value noise with per-pixel grain, the part that compresses worst.
  private mutating func photo(x: Int, y: Int, width w: Int, height h: Int) {
    let cell = 24
    let gridWidth = w / cell + 2
    let gridHeight = h / cell + 2
    let grid = (0..<(gridWidth * gridHeight * 3)).map { _ in Double(random.next() % 256) }
    for row in 0..<h {
      for column in 0..<w {
        let gx = Double(column) / Double(cell)
        let gy = Double(row) / Double(cell)
        let ix = Int(gx)
        let iy = Int(gy)
        let fx = gx - Double(ix)
        let fy = gy - Double(iy)
        var channels = [0.0, 0.0, 0.0]
        for channel in 0..<3 {
          func at(_ i: Int, _ j: Int) -> Double { grid[((j * gridWidth) + i) * 3 + channel] }
          let top = at(ix, iy) * (1 - fx) + at(ix + 1, iy) * fx
          let bottom = at(ix, iy + 1) * (1 - fx) + at(ix + 1, iy + 1) * fx
          let grain = Double(Int(random.next() % 9) - 4)
          channels[channel] = top * (1 - fy) + bottom * fy + grain
        }
        blend(x + column, y + row, Color(channels[0], channels[1], channels[2]), 1)
      }
    }
  }

  /// atan2 without Foundation, accurate to well under a pixel at the pie's radius.
  private func atan2Approximation(_ y: Double, _ x: Double) -> Double {
    guard x != 0 || y != 0 else { return 0 }
    let ax = abs(x)
    let ay = abs(y)
    let a = min(ax, ay) / max(ax, ay)
    let s = a * a
    var r = ((-0.0464964749 * s + 0.15931422) * s - 0.327622764) * s * a + a
    if ay > ax { r = Double.pi / 2 - r }
    if x < 0 { r = Double.pi - r }
    return y < 0 ? -r : r
  }
}
