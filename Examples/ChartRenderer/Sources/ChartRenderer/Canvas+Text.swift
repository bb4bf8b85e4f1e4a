import ReferenceImageCore

extension Canvas {
  /// Where a line of text sits relative to the point it is drawn at.
  public enum TextAlignment: Sendable, Hashable {
    /// The text starts at the point.
    case left
    /// The text is centred on the point.
    case center
    /// The text ends at the point.
    case right
  }

  /// Draws one line of text in the built-in `BitmapFont`.
  ///
  /// The origin snaps to whole pixels so glyphs stay crisp; at scale 1 each font pixel is one
  /// canvas pixel.
  /// - Parameters:
  ///   - text: The text; characters the font lacks draw as hollow boxes.
  ///   - point: The anchor: its `y` is the top of capitals, its `x` is placed by `alignment`.
  ///   - scale: The size of one font pixel in canvas pixels; at least 1.
  ///   - alignment: Which end (or the middle) of the text lies at `point.x`.
  ///   - color: The text colour; translucent colours work.
  public mutating func drawText(
    _ text: String, at point: Point, scale: Int = 1, alignment: TextAlignment = .left,
    color: RGBAColor
  ) {
    let scale = max(scale, 1)
    let width = Double(BitmapFont.width(of: text, scale: scale))
    let left: Double
    switch alignment {
    case .left: left = point.x
    case .center: left = point.x - width / 2
    case .right: left = point.x - width
    }
    guard left.isFinite, point.y.isFinite else { return }
    var x = left.rounded(.down)
    let top = point.y.rounded(.down)
    let pixel = Double(scale)
    for character in text {
      for (row, bits) in BitmapFont.rows(for: character).enumerated() where bits != 0 {
        // One rectangle per horizontal run of inked pixels: fewer, larger fills.
        var column = 0
        while column < BitmapFont.glyphWidth {
          guard Self.inked(bits, column) else {
            column += 1
            continue
          }
          var end = column + 1
          while end < BitmapFont.glyphWidth, Self.inked(bits, end) { end += 1 }
          let rect = Rect(
            x: x + Double(column) * pixel, y: top + Double(row) * pixel,
            width: Double(end - column) * pixel, height: pixel)
          fillRect(rect, .solid(color))
          column = end
        }
      }
      x += Double(BitmapFont.advance) * pixel
    }
  }

  /// Whether the glyph row `bits` inks `column`, counted from the left.
  private static func inked(_ bits: UInt8, _ column: Int) -> Bool {
    bits & (1 << (BitmapFont.glyphWidth - 1 - column)) != 0
  }
}
