import Foundation
import ReferenceImageCore

/// The references whose comparisons passed only because something was tolerated (a channel
/// tolerance, the perceptual threshold, anti-aliasing, a shift, or differing pixels within the
/// bound): a render can drift that way run after run without a test failing, so the run says so
/// in its closing lines. Ignored regions are not tolerance: what they hide was never compared.
struct ToleranceDrift: Equatable {
  /// One passing comparison that tolerated differences.
  struct Pass: Equatable {
    /// The reference's package-relative path.
    let path: String
    /// The share of compared pixels that differ but were tolerated, above 0, at most 1.
    let fraction: Double

    /// The pass of `result`, or nil when it passed with identical pixels (or failed).
    init?(path: String, result: ReferenceImageCore.ComparisonResult) {
      guard result.passed, result.toleratedFraction > 0 else { return nil }
      self.path = path
      fraction = result.toleratedFraction
    }
  }

  /// The passes, in the order their assertions ran.
  var passes: [Pass] = []

  /// "3 references pass only within tolerance; largest 2.1% of pixels tolerated,
  /// Tests/ChartTests/__References__/ChartTests/chart.png", or nil when every comparison that
  /// passed found identical pixels.
  var closingLine: String? {
    guard let largest = passes.max(by: { $0.fraction < $1.fraction }) else { return nil }
    let count = passes.count
    let subject = count == 1 ? "1 reference passes" : "\(count) references pass"
    return "ReferenceImages: \(subject) only within tolerance; largest "
      + "\(Self.percent(largest.fraction)) of pixels tolerated, \(largest.path)"
  }

  /// A share as a percentage a person reads at a glance: one decimal, or two significant digits
  /// below 0.1%, so one pixel of a large image never reads as 0.0%.
  static func percent(_ fraction: Double) -> String {
    let percent = fraction * 100
    let digits = percent >= 0.1 ? 1 : 1 - Int(log10(percent).rounded(.down))
    return String(format: "%.\(digits)f%%", percent)
  }
}
