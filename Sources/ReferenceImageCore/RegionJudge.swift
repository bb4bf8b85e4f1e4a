/// Judges one region of a pair: gathers its changed pixels once, then runs
/// `ChangeClassifier`'s tests in order, each a value computed from what was gathered.
struct RegionJudge {
  let pair: Pair
  let box: PixelBox
  /// The answers about lines that stay put, each looked up once for the region.
  private let lines: LineLookup

  init(pair: Pair, box: PixelBox) {
    self.pair = pair
    self.box = box
    lines = LineLookup(around: box, margin: ChangeClassifier.largestShift)
  }

  /// Whether any column or row of the box, or of the margin a shift reaches, has a line that
  /// is not background running into it from outside.
  func hasLinesAround(background: UInt32?) -> Bool {
    let margin = ChangeClassifier.largestShift
    func isLine(_ ends: LineEnds) -> Bool {
      ends.contains { colour in !(background.map { Word.alike(colour, $0) } ?? false) }
    }
    return ((box.minX - margin)...(box.maxX + margin)).contains { isLine(columnLine($0)) }
      || ((box.minY - margin)...(box.maxY + margin)).contains { isLine(rowLine($0)) }
  }

  /// The colours of the runs that carry a line into the box's column from above and below it
  /// (one of them may be background, which `fixedLine` leaves out); looked at only for the few
  /// pixels a test asks about, so a region pays nothing for lines it never needs, and once.
  func columnLine(_ x: Int) -> LineEnds {
    lines.column(x) {
      LineEnds(
        Self.line(pair, from: (x, box.minY - 1), step: (0, -1)),
        Self.line(pair, from: (x, box.maxY + 1), step: (0, 1)))
    }
  }

  /// The colours of the runs that carry a line into the box's row from its left and right.
  func rowLine(_ y: Int) -> LineEnds {
    lines.row(y) {
      LineEnds(
        Self.line(pair, from: (box.minX - 1, y), step: (-1, 0)),
        Self.line(pair, from: (box.maxX + 1, y), step: (1, 0)))
    }
  }

  /// The colour of a straight run of `lineRun` pixels both images hold alike from a point
  /// outward, when it is one colour that is not background (the box's surroundings are mostly
  /// background; a grid line, an axis or a frame crosses them).
  static func line(_ pair: Pair, from start: (Int, Int), step: (Int, Int)) -> UInt32? {
    guard pair.contains(start.0, start.1) else { return nil }
    let colour = pair.reference(start.0, start.1)
    guard !Word.isTransparent(colour) else { return nil }
    for index in 0..<lineRun {
      let (x, y) = (start.0 + step.0 * index, start.1 + step.1 * index)
      guard pair.contains(x, y), pair.reference(x, y) == colour, pair.actual(x, y) == colour
      else { return nil }
    }
    return colour
  }

  /// How long a run outside a box shows a line that stays put.
  static let lineRun = 4
  /// How far from a pixel a line that stays put is looked for on each side.
  static let lineReach = 64

  /// What one pass over the box found.
  struct Survey {
    /// The changed pixels, as (x, y) packed into one integer: y << 32 | x.
    var changed: [Int] = []
    var largestDifference = 0
    /// Changed pixels where the reference, or the render, shows background.
    var referenceBackground = 0
    var actualBackground = 0
    /// The most common colour around the box in each image, when the box leaves any around it.
    var background: (reference: UInt32, actual: UInt32)?
  }

  /// The share of the changed pixels a test may leave unexplained.
  static func allowance(_ count: Int) -> Int { count / 20 }

  func region() -> ChangedRegion {
    let background = surroundingColours()
    let survey = survey(background: background)
    return ChangedRegion(box: box, changedPixelCount: survey.changed.count, kind: kind(survey))
  }

  func kind(_ survey: Survey) -> ChangeKind {
    let count = survey.changed.count
    guard count > 0 else { return .changed }
    if survey.largestDifference <= ChangeClassifier.noiseLevel {
      return .antiAliasingOrNoise(largestDifference: survey.largestDifference)
    }
    // Added and removed first: a shift can line background up with background, and would
    // then call a thin line or a dot that went missing "moved".
    let allowed = Self.allowance(count)
    if let background = survey.background {
      if uncovered(survey, survey.referenceBackground, in: pair.reference, background.reference)
        >= count - allowed,
        standsApart(
          survey.changed, in: pair.reference, content: pair.actual,
          background: background.reference)
      {
        return .added
      }
      if uncovered(survey, survey.actualBackground, in: pair.actual, background.actual)
        >= count - allowed,
        standsApart(
          survey.changed, in: pair.actual, content: pair.reference,
          background: background.actual)
      {
        return .removed
      }
    }
    if let shift = shift(survey) { return .moved(dx: shift.dx, dy: shift.dy) }
    if onlyEdges(survey) || subPixelShift(survey) {
      return .antiAliasingOrNoise(largestDifference: survey.largestDifference)
    }
    if let mapping = recolouring(survey) { return .recoloured(mapping) }
    return .changed
  }

  // MARK: - The survey

  /// The most common colour just around the box in the reference and in the render; nil for a
  /// box that covers the whole common area, where nothing says what background is.
  func surroundingColours() -> (reference: UInt32, actual: UInt32)? {
    // A box's surroundings hold few colours: counted in small lists, not hash tables (a busy
    // screen has hundreds of regions).
    var referenceCounts = ColourCounts()
    var actualCounts = ColourCounts()
    func note(_ x: Int, _ y: Int) {
      guard pair.contains(x, y) else { return }
      referenceCounts.add(pair.reference(x, y))
      actualCounts.add(pair.actual(x, y))
    }
    for x in (box.minX - 1)...(box.maxX + 1) {
      note(x, box.minY - 1)
      note(x, box.maxY + 1)
    }
    for y in box.minY...box.maxY {
      note(box.minX - 1, y)
      note(box.maxX + 1, y)
    }
    guard let reference = referenceCounts.mostCommon, let actual = actualCounts.mostCommon
    else { return nil }
    return (reference, actual)
  }

  /// Colours and how often each was met, in the order first met. A few colours are found by
  /// a look down the list; past `indexedFrom` (the edge of a box crossing text, photos or
  /// gradients) by a table from colour to place.
  private struct ColourCounts {
    var colours: [UInt32] = []
    var counts: [Int] = []
    /// The indices of the two colours added last: the edges are walked two at a time (top and
    /// bottom, left and right), and along an edge one colour runs on for a while.
    var recent = (0, 0)
    var index: [UInt32: Int] = [:]
    static let indexedFrom = 16

    mutating func add(_ colour: UInt32) {
      let found: Int
      if recent.0 < colours.count, colours[recent.0] == colour {
        found = recent.0
      } else if recent.1 < colours.count, colours[recent.1] == colour {
        found = recent.1
      } else if colours.count > Self.indexedFrom {
        if let known = index[colour] {
          found = known
        } else {
          found = colours.count
          index[colour] = found
          colours.append(colour)
          counts.append(0)
        }
      } else if let known = colours.firstIndex(of: colour) {
        found = known
      } else {
        found = colours.count
        colours.append(colour)
        counts.append(0)
        if colours.count > Self.indexedFrom {
          for (place, colour) in colours.enumerated() { index[colour] = place }
        }
      }
      counts[found] += 1
      recent = (found, recent.0)
    }

    /// The most common colour; of equals, the first met.
    var mostCommon: UInt32? {
      guard let largest = counts.max() else { return nil }
      return colours[counts.firstIndex(of: largest)!]
    }
  }

  /// One pass over the box: the changed pixels, the largest difference and the background
  /// counts.
  func survey(background: (reference: UInt32, actual: UInt32)?) -> Survey {
    var survey = Survey(background: background)
    for y in box.minY...box.maxY {
      let actualRow = pair.actual.baseAddress! + y * pair.actualWidth
      let referenceRow = pair.reference.baseAddress! + y * pair.referenceWidth
      var x = box.minX
      while x <= box.maxX {
        // Eight unchanged pixels, most of a box, skipped with two loads and a compare.
        if x + 8 <= box.maxX + 1,
          UnsafeRawPointer(actualRow + x).loadUnaligned(as: SIMD8<UInt32>.self)
            == UnsafeRawPointer(referenceRow + x).loadUnaligned(as: SIMD8<UInt32>.self)
        {
          x += 8
          continue
        }
        let actual = actualRow[x]
        let reference = referenceRow[x]
        x += 1
        guard actual != reference else { continue }
        let x = x - 1
        survey.changed.append(y << 32 | x)
        survey.largestDifference = max(
          survey.largestDifference, Word.largestDifference(actual, reference))
        if let background {
          if Word.isTransparent(reference) || Word.alike(reference, background.reference) {
            survey.referenceBackground += 1
          }
          if Word.isTransparent(actual) || Word.alike(actual, background.actual) {
            survey.actualBackground += 1
          }
        }
      }
    }
    return survey
  }

  // MARK: - Content that stays put

  /// The colour of a line of content that stays put through (x, y): a grid line, an axis or
  /// a frame that enters the box from outside (`columnLine`, `rowLine`) and shows
  /// unchanged on both sides of the point, so that it runs on through it; nil where none does.
  /// A line of background colour is no content.
  func fixedLine(_ x: Int, _ y: Int, background: UInt32?) -> UInt32? {
    fixedLine(x, y, along: columnLine(x), step: (0, 1), background: background)
      ?? fixedLine(x, y, along: rowLine(y), step: (1, 0), background: background)
  }

  /// `fixedLine` for the lines of one column or row.
  func fixedLine(
    _ x: Int, _ y: Int, along ends: LineEnds, step: (Int, Int), background: UInt32?
  ) -> UInt32? {
    ends.first { colour in
      !(background.map { Word.alike(colour, $0) } ?? false)
        && showsUnchanged(colour, from: (x, y), step: step, background: background)
        && showsUnchanged(colour, from: (x, y), step: (-step.0, -step.1), background: background)
    }
  }

  /// Whether a line that stays put runs through (x, y) (`fixedLine` with the reference's
  /// background around the box), asked once per pixel: every offset a move is tried at asks
  /// about the same few pixels.
  func onFixedLine(_ x: Int, _ y: Int, background: UInt32?) -> Bool {
    lines.throughPixel(x, y) { fixedLine(x, y, background: background) != nil }
  }

  /// Whether a pixel both images hold alike in `colour` lies from a point in a direction,
  /// within `lineReach` (a stroke moved along a grid line covers it for a while), before any
  /// unchanged background; or other content both hold alike comes first (a grid line ends at
  /// an axis).
  func showsUnchanged(
    _ colour: UInt32, from start: (Int, Int), step: (Int, Int), background: UInt32?
  ) -> Bool {
    var sawBackground = false
    for distance in 1...Self.lineReach {
      let (x, y) = (start.0 + step.0 * distance, start.1 + step.1 * distance)
      guard pair.contains(x, y) else { return false }
      let word = pair.actual(x, y)
      guard word == pair.reference(x, y) else { continue }
      if Word.alike(word, colour) { return true }
      if background.map({ Word.alike(word, $0) }) ?? false {
        sawBackground = true
      } else if !sawBackground && !Word.isTransparent(word) {
        return true
      }
    }
    return false
  }
}
