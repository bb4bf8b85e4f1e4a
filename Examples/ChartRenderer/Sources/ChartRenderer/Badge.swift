import ReferenceImageCore

/// A status badge in the style CI services show in READMEs: a label and a value on two colours
/// inside one rounded pill, on a transparent background.
///
/// ```swift
/// let image = try Badge(label: "tests", value: "412 passed").render()
/// ```
public struct Badge: Sendable {
  /// The text on the left.
  public var label: String
  /// The text on the right.
  public var value: String
  /// The colour behind the label.
  public var labelColor: RGBAColor
  /// The colour behind the value.
  public var valueColor: RGBAColor
  /// The text colour.
  public var textColor: RGBAColor
  /// The size of one font pixel; the badge grows with it.
  public var scale: Int
  /// The corner radius in pixels; `nil` for a full pill.
  public var cornerRadius: Double?

  /// A green for passing builds.
  public static let passing = RGBAColor(hex: 0x44CC11)
  /// A red for failing builds.
  public static let failing = RGBAColor(hex: 0xE05D44)
  /// The usual grey behind labels.
  public static let neutral = RGBAColor(hex: 0x555555)

  /// Creates a badge.
  /// - Parameters:
  ///   - label: The text on the left.
  ///   - value: The text on the right.
  ///   - valueColor: The colour behind the value; green by default.
  ///   - labelColor: The colour behind the label; grey by default.
  ///   - textColor: The text colour; white by default.
  ///   - scale: The size of one font pixel; at least 1.
  ///   - cornerRadius: The corner radius in pixels; `nil` for a full pill.
  public init(
    label: String, value: String, valueColor: RGBAColor = Badge.passing,
    labelColor: RGBAColor = Badge.neutral, textColor: RGBAColor = .white, scale: Int = 2,
    cornerRadius: Double? = nil
  ) {
    self.label = label
    self.value = value
    self.labelColor = labelColor
    self.valueColor = valueColor
    self.textColor = textColor
    self.scale = max(scale, 1)
    self.cornerRadius = cornerRadius
  }

  /// Draws the badge; its size follows from the texts and `scale`.
  /// - Returns: The badge on a transparent background, the same bytes on every machine.
  /// - Throws: `ImageError.invalidSize` when the texts make an impossibly wide image.
  public func render() throws(ImageError) -> RGBAImage {
    let pixel = Double(scale)
    let padding = 6 * pixel
    let labelWidth = Double(BitmapFont.width(of: label, scale: scale)) + 2 * padding
    let valueWidth = Double(BitmapFont.width(of: value, scale: scale)) + 2 * padding
    let height = Double(BitmapFont.capHeight + 7) * pixel
    var canvas = try Canvas(width: Int(labelWidth + valueWidth), height: Int(height))
    let pill = Rect(x: 0, y: 0, width: labelWidth + valueWidth, height: height)
    let radius = cornerRadius ?? height / 2
    canvas.fillRoundedRect(pill, radius: radius, .solid(labelColor))
    // The value half is the same pill clipped to the right, so both halves share one outline.
    canvas.clipRect = Rect(x: labelWidth, y: 0, width: valueWidth, height: height)
    canvas.fillRoundedRect(pill, radius: radius, .solid(valueColor))
    canvas.clipRect = nil
    // A faint sheen, lighter at the top, as on the classic badges.
    let sheen = LinearGradient(
      start: Point(x: 0, y: 0), end: Point(x: 0, y: height),
      from: RGBAColor.white.withAlpha(40), to: RGBAColor.black.withAlpha(25))
    canvas.fillRoundedRect(pill, radius: radius, .linearGradient(sheen))
    let textY = 3.5 * pixel
    for (text, center) in [(label, labelWidth / 2), (value, labelWidth + valueWidth / 2)] {
      // A shadow one font pixel down keeps white text legible on light colours.
      canvas.drawText(
        text, at: Point(x: center, y: textY + pixel), scale: scale, alignment: .center,
        color: RGBAColor.black.withAlpha(70))
      canvas.drawText(
        text, at: Point(x: center, y: textY), scale: scale, alignment: .center, color: textColor)
    }
    return canvas.image
  }
}
