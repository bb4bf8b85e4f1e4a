/// How many differing pixels a comparison allows before it fails.
public enum DifferenceBound: Sendable, Hashable, CustomStringConvertible {
  /// At most this fraction of pixels may differ away from 1: `requiredAccuracy(0.999)` lets one
  /// pixel in a thousand differ. `requiredAccuracy(1)` allows none.
  case requiredAccuracy(Double)
  /// At most this many pixels may differ.
  case maximumDifferingPixels(Int)

  /// No differing pixel is allowed.
  public static let none = DifferenceBound.maximumDifferingPixels(0)

  /// The number of differing pixels allowed in an image of `totalPixelCount` pixels.
  /// - Parameter totalPixelCount: The image's pixel count.
  /// - Returns: The allowed count, never negative.
  public func allowedDifferingPixels(totalPixelCount: Int) -> Int {
    switch self {
    case .requiredAccuracy(let accuracy):
      let clamped = min(max(accuracy, 0), 1)
      // 0.999 is stored as a binary fraction, so (1 - 0.999) × 1000 may land just below 1 and
      // allow one pixel too few. The slack covers that representation error, which grows with
      // the pixel count (a fixed 1e-9 alone is lost at 100 megapixels: 0.9999 would allow 9999
      // of 10⁸).
      let total = Double(totalPixelCount)
      let slack = 1e-9 + total * 1e-15
      return Int(((1 - clamped) * total + slack).rounded(.down))
    case .maximumDifferingPixels(let count):
      return max(count, 0)
    }
  }

  public var description: String {
    switch self {
    case .requiredAccuracy(let accuracy): "required accuracy \(accuracy)"
    case .maximumDifferingPixels(let count): "at most \(count) differing pixels"
    }
  }
}
