import Foundation
import ReferenceImageCore

/// A profile card: a round avatar, a name and a caption, and a thumbnail of the person's latest
/// work on the right; the two images come from URLs.
///
/// The text column between the images is 160 pixels wide: 13 characters of name, 26 of
/// caption; longer text runs under the thumbnail.
///
/// The card draws synchronously from whatever its `ImageLoader` has at hand (`cached`): an image
/// that is not loaded yet draws as a neutral placeholder shape, so an app renders at once and
/// again when `ImageLoader.load` returns; a render test passes a stub and gets every image.
public struct ProfileCard: Sendable, Hashable {
  /// The card's width in pixels.
  public static let width = 360
  /// The card's height in pixels.
  public static let height = 104

  /// The person's name, drawn large.
  public var name: String
  /// A line under the name.
  public var caption: String
  /// The avatar, drawn in a circle.
  public var avatarURL: URL
  /// The thumbnail of the person's latest work, drawn in a rounded rectangle.
  public var thumbnailURL: URL
  /// The colours.
  public var theme: Theme

  /// Creates a card.
  /// - Parameters:
  ///   - name: The person's name.
  ///   - caption: A line under the name.
  ///   - avatarURL: The avatar image's URL.
  ///   - thumbnailURL: The thumbnail image's URL.
  ///   - theme: The colours; light by default.
  public init(
    name: String, caption: String, avatarURL: URL, thumbnailURL: URL, theme: Theme = .light
  ) {
    self.name = name
    self.caption = caption
    self.avatarURL = avatarURL
    self.thumbnailURL = thumbnailURL
    self.theme = theme
  }

  /// Where the avatar goes.
  public static let avatarFrame = Rect(x: 16, y: 16, width: 72, height: 72)
  /// Where the thumbnail goes.
  public static let thumbnailFrame = Rect(x: 272, y: 16, width: 72, height: 72)

  /// Draws the card.
  /// - Parameter images: Where the avatar and thumbnail come from; only `cached` is used.
  /// - Returns: A `width` × `height` image with transparent corners.
  /// - Throws: Never in practice; `ImageError` if the fixed size were invalid.
  public func render(images: ImageLoader) throws(ImageError) -> RGBAImage {
    var canvas = try Canvas(width: Self.width, height: Self.height)
    let card = Rect(x: 0, y: 0, width: Double(Self.width), height: Double(Self.height))
    canvas.fillRoundedRect(card, radius: 12, .solid(theme.background))
    canvas.strokeRoundedRect(card.insetBy(0.5), radius: 11.5, lineWidth: 1, .solid(theme.grid))

    let avatar = Self.avatarFrame
    if let image = images.cached(avatarURL) {
      canvas.drawImage(image, in: avatar, shape: .circle)
    } else {
      canvas.fillCircle(center: avatar.center, radius: avatar.width / 2, .solid(theme.grid))
    }
    canvas.strokeCircle(
      center: avatar.center, radius: avatar.width / 2, lineWidth: 2, .solid(theme.axis))

    canvas.drawText(name, at: Point(x: 104, y: 22), scale: 2, color: theme.title)
    canvas.drawText(caption, at: Point(x: 104, y: 48), color: theme.label)

    let thumbnail = Self.thumbnailFrame
    if let image = images.cached(thumbnailURL) {
      canvas.drawImage(image, in: thumbnail, shape: .roundedRect(radius: 8))
    } else {
      canvas.fillRoundedRect(thumbnail, radius: 8, .solid(theme.grid))
    }
    return canvas.image
  }
}
