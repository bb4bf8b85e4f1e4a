import Foundation

/// Forty made-up glyphs, each a few strokes rendered with 4×4 supersampling, so text has the
/// grey, anti-aliased edges that make up most of a real screenshot's fine detail.
struct Glyphs {
  static let width = 9
  static let height = 16
  static let shared = Glyphs(seed: 0x5EED_6171)

  private var coverages: [Double]
  var count: Int { coverages.count / (Self.width * Self.height) }

  func coverage(_ glyph: Int, _ x: Int, _ y: Int) -> Double {
    coverages[(glyph * Self.height + y) * Self.width + x]
  }

  private init(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    // Strokes of a tiny sans-serif: stems, bars, diagonals and a bowl, in glyph coordinates.
    enum Stroke {
      case line(Double, Double, Double, Double)
      case ring(Double, Double, Double)
    }
    let strokes: [Stroke] = [
      .line(2, 3, 2, 13), .line(7, 6, 7, 13), .line(4.5, 2, 4.5, 13), .line(2, 6, 7, 6),
      .line(2, 9.5, 7, 9.5), .line(2, 13, 7, 13), .line(2, 13, 7, 6), .line(2, 6, 7, 13),
      .line(2, 3, 4.5, 13), .ring(4.5, 9.5, 2.8), .ring(4.5, 5, 2.2), .line(7, 13, 7, 15.5),
    ]
    var coverages: [Double] = []
    for _ in 0..<40 {
      var chosen: [Stroke] = []
      let strokeCount = 2 + Int(random.next() % 3)
      for _ in 0..<strokeCount {
        chosen.append(strokes[Int(random.next() % UInt64(strokes.count))])
      }
      for y in 0..<Self.height {
        for x in 0..<Self.width {
          var hits = 0
          for sy in 0..<4 {
            for sx in 0..<4 {
              let px = Double(x) + (Double(sx) + 0.5) / 4
              let py = Double(y) + (Double(sy) + 0.5) / 4
              let inside = chosen.contains { stroke in
                switch stroke {
                case .line(let x0, let y0, let x1, let y1):
                  let vx = x1 - x0
                  let vy = y1 - y0
                  let t = max(0, min(1, ((px - x0) * vx + (py - y0) * vy) / (vx * vx + vy * vy)))
                  let dx = px - x0 - t * vx
                  let dy = py - y0 - t * vy
                  return dx * dx + dy * dy < 0.7 * 0.7
                case .ring(let cx, let cy, let radius):
                  let distance = ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot()
                  return abs(distance - radius) < 0.7
                }
              }
              if inside { hits += 1 }
            }
          }
          coverages.append(Double(hits) / 16)
        }
      }
    }
    self.coverages = coverages
  }
}
