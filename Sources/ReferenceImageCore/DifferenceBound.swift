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
      // The small epsilon keeps 0.999 × 1000 from becoming 0.99999… and allowing one pixel too few.
      return Int(((1 - clamped) * Double(totalPixelCount) + 1e-9).rounded(.down))
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
