import ReferenceImageCore

/// The generator of the change-kind corpus: a small anti-aliasing rasteriser (exact area
/// coverage for rectangles and text cells, 8 × 8 samples for strokes and disks, composited
/// over what is there) and the scenes a render test draws: charts with grid lines, axes,
/// anti-aliased series, bars, a legend and a title; screens of panels with text, buttons and
/// boxes. A case is two renders of a scene, the second with one change in its description,
/// and the kinds a person would name for what changed.
enum RenderCorpus {
  /// A coverage mask: how much of each pixel a shape covers, 0…1.
  struct Mask {
    let width: Int
    let height: Int
    var values: [Double]
    /// The pixels any shape touched, so painting visits only them.
    var touched: (minX: Int, minY: Int, maxX: Int, maxY: Int)?

    init(width: Int, height: Int) {
      self.width = width
      self.height = height
      values = [Double](repeating: 0, count: width * height)
    }

    private mutating func touch(_ minX: Int, _ minY: Int, _ maxX: Int, _ maxY: Int) {
      guard let box = touched else { return touched = (minX, minY, maxX, maxY) }
      touched = (min(box.minX, minX), min(box.minY, minY), max(box.maxX, maxX), max(box.maxY, maxY))
    }

    /// A rectangle with fractional edges, its exact area per pixel added (text cells and
    /// bars that abut add up to full coverage, as a renderer's one path does).
    mutating func addRect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
      let minX = max(0, Int(x0.rounded(.down)))
      let maxX = min(width - 1, Int(x1.rounded(.up)) - 1)
      let minY = max(0, Int(y0.rounded(.down)))
      let maxY = min(height - 1, Int(y1.rounded(.up)) - 1)
      guard minX <= maxX, minY <= maxY else { return }
      touch(minX, minY, maxX, maxY)
      for y in minY...maxY {
        let coverY = min(Double(y + 1), y1) - max(Double(y), y0)
        guard coverY > 0 else { continue }
        for x in minX...maxX {
          let coverX = min(Double(x + 1), x1) - max(Double(x), x0)
          guard coverX > 0 else { continue }
          values[y * width + x] = min(1, values[y * width + x] + coverX * coverY)
        }
      }
    }

    /// Samples a shape on 8 × 8 points per pixel inside a bounding box; the union with what
    /// the mask holds (a polyline's joints are covered once).
    mutating func addSampled(
      minX: Double, minY: Double, maxX: Double, maxY: Double, _ inside: (Double, Double) -> Bool
    ) {
      let left = max(0, Int(minX.rounded(.down)))
      let right = min(width - 1, Int(maxX.rounded(.up)))
      let top = max(0, Int(minY.rounded(.down)))
      let bottom = min(height - 1, Int(maxY.rounded(.up)))
      guard left <= right, top <= bottom else { return }
      touch(left, top, right, bottom)
      for y in top...bottom {
        for x in left...right {
          var hits = 0
          for sy in 0..<8 {
            for sx in 0..<8
            where inside(Double(x) + (Double(sx) + 0.5) / 8, Double(y) + (Double(sy) + 0.5) / 8) {
              hits += 1
            }
          }
          values[y * width + x] = max(values[y * width + x], Double(hits) / 64)
        }
      }
    }

    /// A stroked polyline of a width, with round joins.
    mutating func addPolyline(_ points: [(Double, Double)], width lineWidth: Double) {
      let half = lineWidth / 2
      for (a, b) in zip(points, points.dropFirst()) {
        addSampled(
          minX: min(a.0, b.0) - half, minY: min(a.1, b.1) - half, maxX: max(a.0, b.0) + half,
          maxY: max(a.1, b.1) + half
        ) { x, y in
          let (dx, dy) = (b.0 - a.0, b.1 - a.1)
          let length = dx * dx + dy * dy
          let t = length == 0 ? 0 : max(0, min(1, ((x - a.0) * dx + (y - a.1) * dy) / length))
          let (px, py) = (a.0 + t * dx - x, a.1 + t * dy - y)
          return px * px + py * py <= half * half
        }
      }
    }

    mutating func addDisk(_ centerX: Double, _ centerY: Double, radius: Double) {
      addSampled(
        minX: centerX - radius, minY: centerY - radius, maxX: centerX + radius,
        maxY: centerY + radius
      ) { x, y in
        (x - centerX) * (x - centerX) + (y - centerY) * (y - centerY) <= radius * radius
      }
    }

    /// Text in a 5 × 7 cell font, each cell `scale` pixels, from a fixed pattern per
    /// character: strokes of full cells whose edges fall where the position puts them.
    mutating func addText(_ text: String, x: Double, y: Double, scale: Double = 2) {
      for (index, character) in text.unicodeScalars.enumerated() where character != " " {
        let left = x + Double(index) * 6 * scale
        for (row, bits) in RenderCorpus.glyph(character).enumerated() {
          for column in 0..<5 where bits & (1 << (4 - column)) != 0 {
            addRect(
              left + Double(column) * scale, y + Double(row) * scale,
              left + Double(column + 1) * scale, y + Double(row + 1) * scale)
          }
        }
      }
    }
  }

  /// Seven rows of five bits for a character: a fixed pseudo-random pattern with a stem, so
  /// that no two characters and no shift of one look alike.
  static func glyph(_ character: Unicode.Scalar) -> [UInt8] {
    var state = UInt64(character.value) &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<7).map { row in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let bits = UInt8(truncatingIfNeeded: state >> 59) & 0b11111
      return row == 0 || row == 6 ? bits | 0b01110 : bits | 0b10000
    }
  }

  /// Composites a colour over the image where a mask covers it.
  static func paint(_ image: inout RGBAImage, _ mask: Mask, _ color: RGBAColor, opacity: Double = 1)
  {
    guard let box = mask.touched else { return }
    for y in box.minY...box.maxY {
      for x in box.minX...box.maxX {
        let coverage = mask.values[y * mask.width + x] * opacity * Double(color.alpha) / 255
        guard coverage > 0 else { continue }
        let under = image[x, y]
        func mix(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
          UInt8((Double(top) * coverage + Double(bottom) * (1 - coverage)).rounded())
        }
        image[x, y] = RGBAColor(
          red: mix(color.red, under.red), green: mix(color.green, under.green),
          blue: mix(color.blue, under.blue))
      }
    }
  }

  static func colour(_ hex: UInt32) -> RGBAColor {
    RGBAColor(
      red: UInt8(hex >> 16 & 0xFF), green: UInt8(hex >> 8 & 0xFF), blue: UInt8(hex & 0xFF))
  }

  // MARK: - Charts

  /// A line chart with grid lines, axes, series, bars, a legend and a title; every part can
  /// move, change colour, grow or go.
  struct Chart {
    var width = 320
    var height = 220
    var background = colour(0xFFFFFF)
    var plot = (x: 40.0, y: 40.0, width: 260.0, height: 150.0)
    var gridSpacing = 26.0
    var grid = colour(0xD8DCE2)
    var axis = colour(0x4B5563)
    struct Series {
      var points: [(Double, Double)]
      var colour: RGBAColor
      var width = 2.0
      var offset = (x: 0.0, y: 0.0)
    }
    var series: [Series] = [
      Series(
        points: [
          (0, 40), (30, 70), (60, 55), (90, 95), (120, 80), (150, 120), (180, 100),
          (210, 130), (240, 110),
        ], colour: colour(0x2563EB))
    ]
    struct Bar { var x: Double, height: Double, colour: RGBAColor }
    var bars: [Bar] = []
    var dots: [(x: Double, y: Double, radius: Double, colour: RGBAColor)] = []
    var title: (text: String, x: Double, y: Double)? = ("REVENUE 2024", 40, 12)
    var legend: (x: Double, y: Double, labels: [(String, RGBAColor)])? = nil
    var labels: [(text: String, x: Double, y: Double)] = []
    var hairlines: [(from: (Double, Double), to: (Double, Double), colour: RGBAColor)] = []
    var panelTint: RGBAColor? = nil
    /// A caption in one-pixel strokes; in faux bold, drawn again a pixel to the right, as a
    /// renderer without a bold face draws it.
    var caption: (text: String, x: Double, y: Double, bold: Bool)? = nil

    func render() throws -> RGBAImage {
      var image = try RGBAImage(width: width, height: height, color: background)
      func mask(_ draw: (inout Mask) -> Void) -> Mask {
        var mask = Mask(width: width, height: height)
        draw(&mask)
        return mask
      }
      if let panelTint {
        paint(
          &image,
          mask { $0.addRect(plot.x, plot.y, plot.x + plot.width, plot.y + plot.height) },
          panelTint)
      }
      // Grid lines: one pixel, on whole pixels, as charting libraries snap them.
      paint(
        &image,
        mask { grid in
          var x = plot.x
          while x <= plot.x + plot.width {
            grid.addRect(x, plot.y, x + 1, plot.y + plot.height)
            x += gridSpacing
          }
          var y = plot.y
          while y <= plot.y + plot.height {
            grid.addRect(plot.x, y, plot.x + plot.width, y + 1)
            y += gridSpacing
          }
        }, grid)
      for bar in bars {
        paint(
          &image,
          mask {
            $0.addRect(
              plot.x + bar.x, plot.y + plot.height - bar.height, plot.x + bar.x + 14,
              plot.y + plot.height)
          }, bar.colour)
      }
      paint(
        &image,
        mask {
          $0.addRect(plot.x, plot.y, plot.x + 1.5, plot.y + plot.height)
          $0.addRect(plot.x, plot.y + plot.height - 1.5, plot.x + plot.width, plot.y + plot.height)
        }, axis)
      for line in hairlines {
        paint(&image, mask { $0.addPolyline([line.from, line.to], width: 1) }, line.colour)
      }
      for series in series {
        let points = series.points.map {
          (plot.x + $0.0 + series.offset.x, plot.y + plot.height - $0.1 + series.offset.y)
        }
        paint(&image, mask { $0.addPolyline(points, width: series.width) }, series.colour)
      }
      for dot in dots {
        paint(&image, mask { $0.addDisk(dot.x, dot.y, radius: dot.radius) }, dot.colour)
      }
      if let title {
        paint(&image, mask { $0.addText(title.text, x: title.x, y: title.y) }, colour(0x111827))
      }
      for label in labels {
        paint(
          &image, mask { $0.addText(label.text, x: label.x, y: label.y, scale: 1.5) },
          colour(0x374151))
      }
      if let caption {
        paint(
          &image,
          mask { mask in
            mask.addText(caption.text, x: caption.x, y: caption.y, scale: 1)
            if caption.bold { mask.addText(caption.text, x: caption.x + 1, y: caption.y, scale: 1) }
          }, colour(0x374151))
      }
      if let legend {
        for (index, entry) in legend.labels.enumerated() {
          let top = legend.y + Double(index) * 16
          paint(
            &image, mask { $0.addRect(legend.x, top + 2, legend.x + 10, top + 12) }, entry.1)
          paint(
            &image, mask { $0.addText(entry.0, x: legend.x + 14, y: top + 2, scale: 1.5) },
            colour(0x374151))
        }
      }
      return image
    }
  }

  // MARK: - Screens

  /// A screen of panels, each with a heading, a line of text and buttons; boxes can be
  /// added, text moved, panels recoloured.
  struct Screen {
    var width = 640
    var height = 420
    struct Panel {
      var x: Double, y: Double, width = 190.0, height = 120.0
      var fill = colour(0xF3F4F6)
      var heading: String
      var headingOffset = (x: 0.0, y: 0.0)
      var body: String
      var bodyOffset = (x: 0.0, y: 0.0)
      var boxes: [(x: Double, y: Double, width: Double, height: Double, colour: RGBAColor)] = []
    }
    var panels: [Panel] = (0..<6).map { index in
      Panel(
        x: 16 + Double(index % 3) * 206, y: 16 + Double(index / 3) * 200,
        heading: ["ORDERS", "USERS", "UPTIME", "ERRORS", "LATENCY", "QUEUE"][index],
        body: ["TODAY 1284", "ACTIVE 93", "99 95 PCT", "FIVE NEW", "P95 212MS", "DEPTH 7"][index])
    }

    func render() throws -> RGBAImage {
      var image = try RGBAImage(width: width, height: height, color: colour(0xFFFFFF))
      for panel in panels {
        var fill = Mask(width: width, height: height)
        fill.addRect(panel.x, panel.y, panel.x + panel.width, panel.y + panel.height)
        paint(&image, fill, panel.fill)
        var frame = Mask(width: width, height: height)
        frame.addRect(panel.x, panel.y, panel.x + panel.width, panel.y + 1)
        frame.addRect(
          panel.x, panel.y + panel.height - 1, panel.x + panel.width, panel.y + panel.height)
        frame.addRect(panel.x, panel.y, panel.x + 1, panel.y + panel.height)
        frame.addRect(
          panel.x + panel.width - 1, panel.y, panel.x + panel.width, panel.y + panel.height)
        paint(&image, frame, colour(0xC7CCD4))
        var heading = Mask(width: width, height: height)
        heading.addText(
          panel.heading, x: panel.x + 10 + panel.headingOffset.x,
          y: panel.y + 10 + panel.headingOffset.y)
        paint(&image, heading, colour(0x111827))
        var body = Mask(width: width, height: height)
        body.addText(
          panel.body, x: panel.x + 10 + panel.bodyOffset.x, y: panel.y + 40 + panel.bodyOffset.y,
          scale: 1.5)
        paint(&image, body, colour(0x4B5563))
        for box in panel.boxes {
          var mask = Mask(width: width, height: height)
          mask.addRect(
            panel.x + box.x, panel.y + box.y, panel.x + box.x + box.width,
            panel.y + box.y + box.height)
          paint(&image, mask, box.colour)
        }
      }
      return image
    }
  }
}
