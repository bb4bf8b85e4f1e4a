import ReferenceImageCore

extension Canvas {
  /// The shape an image is cut to by `drawImage(_:in:shape:)`.
  public enum ImageShape: Sendable, Hashable {
    /// The whole rectangle.
    case rectangle
    /// The rectangle with rounded corners of this radius.
    case roundedRect(radius: Double)
    /// The largest circle centred in the rectangle.
    case circle
  }

  /// Draws an image scaled to fill a rectangle, cut to a shape with anti-aliased edges.
  ///
  /// Each canvas pixel takes the image pixel under its centre (nearest-neighbour sampling: no
  /// interpolation to differ between machines, and a 1 × 1 image fills the whole shape).
  /// - Parameters:
  ///   - image: The image; its alpha blends over what is below.
  ///   - rect: Where the image goes; it is stretched to this size.
  ///   - shape: The outline the image is cut to; the whole rectangle by default.
  public mutating func drawImage(_ image: RGBAImage, in rect: Rect, shape: ImageShape = .rectangle)
  {
    guard rect.width > 0, rect.height > 0, rect.x.isFinite, rect.y.isFinite else { return }
    let left = max(Int(rect.x.rounded(.down)), 0)
    let right = min(Int(rect.maxX.rounded(.up)), width)
    let top = max(Int(rect.y.rounded(.down)), 0)
    let bottom = min(Int(rect.maxY.rounded(.up)), height)
    guard left < right, top < bottom else { return }
    let coverage = Self.coverage(of: shape, in: rect)
    for y in top..<bottom {
      let v = Self.sample(Double(y) + 0.5, rect.y, rect.height, image.height)
      for x in left..<right {
        let u = Self.sample(Double(x) + 0.5, rect.x, rect.width, image.width)
        let pixel = Rect(x: Double(x), y: Double(y), width: 1, height: 1)
        fill(bounds: pixel, paint: .solid(image[u, v]), coverage: coverage)
      }
    }
  }

  /// The source index for a canvas coordinate, clamped to the image.
  private static func sample(_ position: Double, _ origin: Double, _ extent: Double, _ count: Int)
    -> Int
  {
    let index = Int(((position - origin) / extent * Double(count)).rounded(.down))
    return min(max(index, 0), count - 1)
  }

  /// The coverage function of a shape, for `fill(bounds:paint:coverage:)`.
  private static func coverage(of shape: ImageShape, in rect: Rect) -> (Int, Int) -> Double {
    switch shape {
    case .rectangle:
      return { x, y in overlap(Double(x), rect.x, rect.maxX) * overlap(Double(y), rect.y, rect.maxY)
      }
    case .roundedRect(let radius):
      let radius = max(0, min(radius, rect.width / 2, rect.height / 2))
      return { x, y in Self.coverage(distance: roundedRectDistance(x, y, rect, radius)) }
    case .circle:
      let radius = min(rect.width, rect.height) / 2
      let center = rect.center
      return { x, y in Self.coverage(distance: distance(x, y, center) - radius) }
    }
  }
}
