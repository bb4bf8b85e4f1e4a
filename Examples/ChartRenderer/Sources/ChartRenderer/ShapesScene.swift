import ReferenceImageCore

/// A still life of every drawing primitive: gradients, translucent overlapping circles, rounded
/// rectangles, an ellipse, rings, a fan of lines of growing width, and text.
///
/// Useful as a render-test subject that exercises anti-aliasing and blending everywhere.
public struct ShapesScene: Sendable {
  /// The image width in pixels; the scene is laid out for 400 and scales with it.
  public var width: Int
  /// The image height in pixels; the scene is laid out for 300 and scales with it.
  public var height: Int
  /// The colours: the background and the first three palette entries.
  public var theme: Theme

  /// Creates the scene.
  /// - Parameters:
  ///   - width: The image width in pixels.
  ///   - height: The image height in pixels.
  ///   - theme: The colours.
  public init(width: Int = 400, height: Int = 300, theme: Theme = .light) {
    self.width = width
    self.height = height
    self.theme = theme
  }

  /// Draws the scene.
  /// - Returns: A `width`×`height` image, the same bytes on every machine.
  /// - Throws: `ImageError.invalidSize` when `width` or `height` is not a valid image size.
  public func render() throws(ImageError) -> RGBAImage {
    var canvas = try Canvas(width: width, height: height)
    // Laid out on a 400×300 design grid; `s` maps it to the actual size.
    let sx = Double(width) / 400
    let sy = Double(height) / 300
    func p(_ x: Double, _ y: Double) -> Point { Point(x: x * sx, y: y * sy) }
    func r(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Rect {
      Rect(x: x * sx, y: y * sy, width: w * sx, height: h * sy)
    }
    let s = min(sx, sy)
    let (first, second, third) = (theme.color(at: 0), theme.color(at: 1), theme.color(at: 2))

    let backdrop = LinearGradient(
      start: p(0, 0), end: p(0, 300), from: theme.background,
      to: LinearGradient.mix(theme.background, first, 0.12))
    canvas.fillRect(r(0, 0, 400, 300), .linearGradient(backdrop))

    // Three translucent circles: their overlaps show the straight-alpha blend.
    for (color, x, y) in [(first, 90.0, 95.0), (second, 140.0, 95.0), (third, 115.0, 138.0)] {
      canvas.fillCircle(center: p(x, y), radius: 48 * s, .solid(color.withAlpha(140)))
    }

    // A card with a diagonal gradient, and a ring on it.
    let card = r(220, 40, 150, 100)
    let cardPaint = LinearGradient(
      start: p(220, 40), end: p(370, 140), from: first, to: LinearGradient.mix(first, third, 0.8))
    canvas.fillRoundedRect(
      card.insetBy(-2 * s), radius: 18 * s, .solid(RGBAColor.black.withAlpha(30)))
    canvas.fillRoundedRect(card, radius: 16 * s, .linearGradient(cardPaint))
    canvas.strokeCircle(center: p(330, 90), radius: 26 * s, lineWidth: 6 * s, .solid(.white))
    canvas.fillCircle(center: p(330, 90), radius: 8 * s, .solid(RGBAColor.white.withAlpha(160)))
    canvas.strokeRoundedRect(
      r(232, 112, 60, 16), radius: 8 * s, lineWidth: 1.5 * s, .solid(RGBAColor.white.withAlpha(200))
    )

    // A flat ellipse under a tall one: curvature differing per axis.
    canvas.fillEllipse(in: r(30, 200, 150, 60), .solid(second.withAlpha(200)))
    canvas.fillEllipse(in: r(80, 180, 40, 100), .solid(third.withAlpha(160)))

    // A fan of lines of growing width: every angle and sub-pixel width anti-aliases.
    let hub = p(320, 288)
    for step in 0..<9 {
      let direction = Turns.cosSin(-0.22 + Double(step) * 0.055)
      let end = Point(x: hub.x + direction.sin * 100 * s, y: hub.y - direction.cos * 100 * s)
      canvas.strokeLine(
        from: hub, to: end, lineWidth: (0.5 + Double(step) * 0.5) * s,
        .solid(LinearGradient.mix(first, second, Double(step) / 8)))
    }
    canvas.fillCircle(center: hub, radius: 6 * s, .solid(theme.title))

    canvas.drawText(
      "Anti-aliased", at: p(210, 156), scale: max(1, Int(2 * s)), alignment: .left,
      color: theme.title)
    return canvas.image
  }
}
