import ReferenceImageCore

/// A colour ramp along the line from `start` to `end`; beyond either end the end colour extends.
public struct LinearGradient: Sendable, Hashable {
  /// One colour of the ramp at a position between 0 (`start`) and 1 (`end`).
  public struct Stop: Sendable, Hashable {
    /// Where the colour sits, 0 at `start` and 1 at `end`.
    public var location: Double
    /// The colour at `location`.
    public var color: RGBAColor

    /// Creates a stop.
    /// - Parameters:
    ///   - location: Where the colour sits, 0…1.
    ///   - color: The colour there.
    public init(_ location: Double, _ color: RGBAColor) {
      self.location = location
      self.color = color
    }
  }

  /// Where location 0 lies.
  public var start: Point
  /// Where location 1 lies.
  public var end: Point
  /// The colours, sorted by location; at least one.
  public var stops: [Stop]

  /// Creates a gradient.
  /// - Parameters:
  ///   - start: Where location 0 lies.
  ///   - end: Where location 1 lies.
  ///   - stops: The colours; sorted by location here, so any order works.
  public init(start: Point, end: Point, stops: [Stop]) {
    precondition(!stops.isEmpty, "a gradient needs at least one stop")
    self.start = start
    self.end = end
    // A stable sort keeps equal locations in the caller's order, for hard colour steps.
    self.stops = stops.enumerated().sorted {
      ($0.element.location, $0.offset) < ($1.element.location, $1.offset)
    }.map(\.element)
  }

  /// Creates a two-colour gradient from `from` at `start` to `to` at `end`.
  /// - Parameters:
  ///   - start: Where `from` lies.
  ///   - end: Where `to` lies.
  ///   - from: The first colour.
  ///   - to: The last colour.
  public init(start: Point, end: Point, from: RGBAColor, to: RGBAColor) {
    self.init(start: start, end: end, stops: [Stop(0, from), Stop(1, to)])
  }

  /// The colour at a point: its projection onto the gradient line, clamped to the ends.
  func color(at point: Point) -> RGBAColor {
    let dx = end.x - start.x
    let dy = end.y - start.y
    let lengthSquared = dx * dx + dy * dy
    let t =
      lengthSquared > 0 ? ((point.x - start.x) * dx + (point.y - start.y) * dy) / lengthSquared : 0
    guard t > stops[0].location else { return stops[0].color }
    for index in 1..<stops.count where t <= stops[index].location {
      let lower = stops[index - 1]
      let upper = stops[index]
      let span = upper.location - lower.location
      return span > 0
        ? Self.mix(lower.color, upper.color, (t - lower.location) / span) : upper.color
    }
    return stops[stops.count - 1].color
  }

  /// Interpolates premultiplied, so a fade to transparent does not darken towards black.
  static func mix(_ a: RGBAColor, _ b: RGBAColor, _ t: Double) -> RGBAColor {
    let alphaA = Double(a.alpha)
    let alphaB = Double(b.alpha)
    let alpha = alphaA + (alphaB - alphaA) * t
    guard alpha > 0 else { return .clear }
    func channel(_ ca: UInt8, _ cb: UInt8) -> UInt8 {
      let premultiplied = Double(ca) * alphaA + (Double(cb) * alphaB - Double(ca) * alphaA) * t
      return Canvas.byte(premultiplied / alpha)
    }
    return RGBAColor(
      red: channel(a.red, b.red), green: channel(a.green, b.green),
      blue: channel(a.blue, b.blue), alpha: Canvas.byte(alpha))
  }
}
