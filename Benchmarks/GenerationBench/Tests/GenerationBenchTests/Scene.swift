import Foundation
import ReferenceImageCore

/// Deterministic, screenshot-like procedural images: a two-colour gradient background, flat
/// cards, anti-aliased discs, a chart line and rows of "text" bars, all varying with the seed,
/// so PNGs compress like real renders rather than like flat colour. The hard cases of an
/// encoder stand beside them: noise (incompressible), a flat image (long runs) and dense text.
/// 800 × 600 unless another size is asked for.
struct Scene {
  let width: Int
  let height: Int

  /// The sizes a run of mixed sizes takes in turns: icons, cards, phone and desktop screens.
  static let mixedSizes: [(width: Int, height: Int)] = [
    (64, 64), (200, 150), (320, 240), (390, 844), (400, 300), (640, 480), (800, 600),
    (1024, 768), (1280, 800), (1600, 1200),
  ]

  /// What an image holds.
  enum Kind: CaseIterable {
    case screenshot, noise, flat, text
  }

  static func render(
    seed: Int, kind: Kind = .screenshot, width: Int = 800, height: Int = 600
  ) -> RGBAImage {
    Scene(width: width, height: height).render(seed: seed, kind: kind)
  }

  func render(seed: Int, kind: Kind) -> RGBAImage {
    switch kind {
    case .screenshot: screenshot(seed: seed)
    case .noise: noise(seed: seed)
    case .flat: flat(seed: seed)
    case .text: text(seed: seed)
    }
  }

  /// Every byte random, alpha included.
  func noise(seed: Int) -> RGBAImage {
    canvas(seed: seed, stream: 2) { p, random in
      for index in stride(from: 0, to: width * height * 4, by: 8) {
        (p + index).withMemoryRebound(to: UInt64.self, capacity: 1) { word in
          word.pointee = random.next().littleEndian
        }
      }
    }
  }

  /// One background colour and three large flat panels.
  func flat(seed: Int) -> RGBAImage {
    canvas(seed: seed, stream: 3) { p, random in
      fill(p, x: 0, y: 0, w: width, h: height, color: (random.byte(), random.byte(), random.byte()))
      for _ in 0..<3 {
        fill(
          p, x: random.int(below: width / 2), y: random.int(below: height / 2),
          w: width / 4 + random.int(below: width / 4),
          h: height / 4 + random.int(below: height / 4),
          color: (random.byte(), random.byte(), random.byte()))
      }
    }
  }

  /// A page of small glyphs: rows of one-pixel strokes of random height and spacing on white.
  func text(seed: Int) -> RGBAImage {
    canvas(seed: seed, stream: 4) { p, random in
      for line in 0..<(height / 12) {
        var x = 8 + random.int(below: 8)
        while x < width - 8 {
          for _ in 0..<(2 + random.int(below: 4)) {
            let tall = 3 + random.int(below: 6)
            let shade = UInt8(random.int(below: 96))
            fill(p, x: x, y: line * 12 + 9 - tall, w: 1, h: tall, color: (shade, shade, shade))
            x += 1 + random.int(below: 2)
          }
          x += 3 + random.int(below: 3)
        }
      }
    }
  }

  func screenshot(seed: Int) -> RGBAImage {
    canvas(seed: seed, stream: 1) { p, random in
      let top = (random.byte(), random.byte(), random.byte())
      let bottom = (random.byte(), random.byte(), random.byte())
      for y in 0..<height {
        let t = y * 256 / height
        let r = UInt8((Int(top.0) * (256 - t) + Int(bottom.0) * t) >> 8)
        let g = UInt8((Int(top.1) * (256 - t) + Int(bottom.1) * t) >> 8)
        let b = UInt8((Int(top.2) * (256 - t) + Int(bottom.2) * t) >> 8)
        var o = y * width * 4
        for x in 0..<width {
          let shade = UInt8(truncatingIfNeeded: x >> 4)
          p[o] = r &+ shade
          p[o + 1] = g
          p[o + 2] = b &+ (shade >> 1)
          o += 4
        }
      }
      for _ in 0..<6 {
        // At least 1, so that icon-sized renders draw their cards too.
        let x0 = random.int(below: max(width - 120, 1))
        let y0 = random.int(below: max(height - 80, 1))
        fill(
          p, x: x0, y: y0, w: 60 + random.int(below: 60), h: 30 + random.int(below: 50),
          color: (random.byte(), random.byte(), random.byte()))
      }
      for _ in 0..<5 {
        disc(
          p, cx: Double(random.int(below: width)), cy: Double(random.int(below: height)),
          radius: 15 + Double(random.int(below: 60)),
          color: (random.byte(), random.byte(), random.byte()))
      }
      let phase = Double(random.int(below: 628)) / 100
      for x in 0..<width {
        let y = Int(Double(height) / 2 + 120 * sin(Double(x) / 70 + phase))
        fill(p, x: x, y: y, w: 1, h: 3, color: (20, 20, 20))
      }
      for row in 0..<12 {
        var x = 20
        while x < width / 2 {
          let word = 8 + random.int(below: 40)
          fill(p, x: x, y: 20 + row * 14, w: word, h: 7, color: (40, 40, 48))
          x += word + 6
        }
      }
    }
  }

  /// An opaque white canvas, painted with random numbers from the seed (each kind of scene on
  /// a stream of its own).
  private func canvas(
    seed: Int, stream: UInt64, _ paint: (UnsafeMutablePointer<UInt8>, inout SplitMix) -> Void
  ) -> RGBAImage {
    var random = SplitMix(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ stream)
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    pixels.withUnsafeMutableBufferPointer { paint($0.baseAddress!, &random) }
    return try! RGBAImage(width: width, height: height, pixels: pixels)
  }

  private func fill(
    _ p: UnsafeMutablePointer<UInt8>, x: Int, y: Int, w: Int, h: Int,
    color: (UInt8, UInt8, UInt8)
  ) {
    let (top, bottom) = (max(y, 0), min(y + h, height))
    let (left, right) = (max(x, 0), min(x + w, width))
    // Shapes that fall outside a small render draw nothing.
    guard top < bottom, left < right else { return }
    for row in top..<bottom {
      var o = (row * width + left) * 4
      for _ in left..<right {
        p[o] = color.0
        p[o + 1] = color.1
        p[o + 2] = color.2
        o += 4
      }
    }
  }

  private func disc(
    _ p: UnsafeMutablePointer<UInt8>, cx: Double, cy: Double, radius: Double,
    color: (UInt8, UInt8, UInt8)
  ) {
    let x0 = max(Int(cx - radius) - 1, 0)
    let x1 = min(Int(cx + radius) + 2, width)
    let y0 = max(Int(cy - radius) - 1, 0)
    let y1 = min(Int(cy + radius) + 2, height)
    guard x0 < x1, y0 < y1 else { return }
    for y in y0..<y1 {
      for x in x0..<x1 {
        let dx = Double(x) + 0.5 - cx
        let dy = Double(y) + 0.5 - cy
        let coverage = min(max(radius - (dx * dx + dy * dy).squareRoot() + 0.5, 0), 1)
        guard coverage > 0 else { continue }
        let o = (y * width + x) * 4
        let a = Int(coverage * 256)
        p[o] = UInt8((Int(color.0) * a + Int(p[o]) * (256 - a)) >> 8)
        p[o + 1] = UInt8((Int(color.1) * a + Int(p[o + 1]) * (256 - a)) >> 8)
        p[o + 2] = UInt8((Int(color.2) * a + Int(p[o + 2]) * (256 - a)) >> 8)
      }
    }
  }
}

struct SplitMix {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
  mutating func int(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
