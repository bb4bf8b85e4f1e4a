/// Sine and cosine of a fraction of a full turn, from a fixed polynomial.
///
/// The platform's `sin` and `cos` come from each C library and may differ in the last bit
/// between machines; a render test needs the same bytes everywhere, so angles go through this.
enum Turns {
  /// The cosine and sine of `turns` full turns (1 turn = 360°), accurate to about 1e-15.
  static func cosSin(_ turns: Double) -> (cos: Double, sin: Double) {
    // Reduce to one eighth of a turn around a multiple of a quarter turn, then use symmetry.
    let quarters = (turns * 4).rounded(.toNearestOrEven)
    let x = (turns * 4 - quarters) * (Double.pi / 2)
    let x2 = x * x
    // Taylor series to x^17 and x^16: with |x| ≤ π/4 the remainder is below 1e-16.
    var sine = 1.0 / 355_687_428_096_000
    var cosine = 1.0 / 20_922_789_888_000
    for n in stride(from: 15, through: 1, by: -2) {
      sine = sine * -x2 + 1 / factorial(n)
      cosine = cosine * -x2 + 1 / factorial(n - 1)
    }
    sine *= x
    switch Int(quarters.truncatingRemainder(dividingBy: 4) + 4) % 4 {
    case 0: return (cosine, sine)
    case 1: return (-sine, cosine)
    case 2: return (-cosine, -sine)
    default: return (sine, -cosine)
    }
  }

  private static func factorial(_ n: Int) -> Double {
    n <= 1 ? 1 : Double(n) * factorial(n - 1)
  }
}
