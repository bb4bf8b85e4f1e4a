/// Round, evenly spaced tick values (steps of 1, 2 or 5 times a power of ten) covering data.
///
/// Uses no logarithm: powers of ten come from exact integer multiplication, so the same data
/// gives the same ticks and labels on every machine.
public struct AxisScale: Sendable, Hashable {
  /// The lowest tick.
  public let lowerBound: Double
  /// The highest tick.
  public let upperBound: Double
  /// The distance between ticks.
  public let step: Double
  /// How many decimals tick labels need to show the step exactly.
  public let fractionDigits: Int

  /// Chooses ticks covering `values`.
  /// - Parameters:
  ///   - values: The data; non-finite values are ignored.
  ///   - includesZero: Whether the range must reach 0, as bar lengths need.
  ///   - maximumIntervals: At most this many gaps between ticks; at least 1.
  public init(covering values: [Double], includesZero: Bool = true, maximumIntervals: Int = 5) {
    let finite = values.filter(\.isFinite)
    var low = finite.min() ?? 0
    var high = finite.max() ?? 1
    if includesZero {
      low = min(low, 0)
      high = max(high, 0)
    }
    if high <= low { high = low + 1 }
    // Clamped so the searches below end even for spans near the limits of `Double`.
    let raw = min(max((high - low) / Double(max(maximumIntervals, 1)), 1e-12), 1e300)
    // Find 10^exponent ≤ raw < 10^(exponent+1), then the first of 1, 2, 5, 10 times it ≥ raw.
    var exponent = 0
    while Self.power(exponent + 1) <= raw { exponent += 1 }
    while Self.power(exponent) > raw { exponent -= 1 }
    var step = Self.power(exponent + 1)
    var digits = max(0, -(exponent + 1))
    for multiplier in [1.0, 2, 5] where multiplier * Self.power(exponent) >= raw {
      step = multiplier * Self.power(exponent)
      digits = max(0, -exponent)
      break
    }
    self.step = step
    self.fractionDigits = digits
    lowerBound = (low / step).rounded(.down) * step
    upperBound = (high / step).rounded(.up) * step
  }

  /// The tick values from `lowerBound` to `upperBound`.
  public var ticks: [Double] {
    let count = Int(((upperBound - lowerBound) / step).rounded())
    return (0...count).map { lowerBound + Double($0) * step }
  }

  /// Where `value` lies between the bounds: 0 at `lowerBound`, 1 at `upperBound`.
  /// - Parameter value: A data value.
  /// - Returns: The fraction, beyond 0…1 for values outside the bounds.
  public func fraction(of value: Double) -> Double {
    (value - lowerBound) / (upperBound - lowerBound)
  }

  /// A tick label with `fractionDigits` decimals.
  /// - Parameter value: The value.
  /// - Returns: The label, such as `"-2.5"`.
  public func label(for value: Double) -> String {
    Self.format(value, fractionDigits: fractionDigits)
  }

  /// Formats a number with a fixed count of decimals, a `.` separator and no grouping,
  /// whatever the locale; halves round away from zero.
  /// - Parameters:
  ///   - value: The number; non-finite values print as `"?"`.
  ///   - fractionDigits: The decimals to show, 0…15.
  /// - Returns: The text, such as `"1234.50"`.
  public static func format(_ value: Double, fractionDigits: Int) -> String {
    let digits = min(max(fractionDigits, 0), 15)
    let scaled = (value * power(digits)).rounded()
    guard value.isFinite, abs(scaled) < 9e15 else { return "?" }
    let units = Int(scaled)
    let divisor = Int(power(digits))
    let whole = String(abs(units) / divisor)
    let sign = units < 0 ? "-" : ""
    guard digits > 0 else { return sign + whole }
    let fraction = String(abs(units) % divisor)
    return sign + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
  }

  /// 10 to the power `exponent`, from an exact integer power and at most one division.
  static func power(_ exponent: Int) -> Double {
    var result = 1.0
    for _ in 0..<min(abs(exponent), 300) { result *= 10 }
    return exponent < 0 ? 1 / result : result
  }
}
