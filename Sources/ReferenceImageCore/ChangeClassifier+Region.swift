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
  private func hasLinesAround(background: UInt32?) -> Bool {
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
  private func columnLine(_ x: Int) -> LineEnds {
    lines.column(x) {
      LineEnds(
        Self.line(pair, from: (x, box.minY - 1), step: (0, -1)),
        Self.line(pair, from: (x, box.maxY + 1), step: (0, 1)))
    }
  }

  /// The colours of the runs that carry a line into the box's row from its left and right.
  private func rowLine(_ y: Int) -> LineEnds {
    lines.row(y) {
      LineEnds(
        Self.line(pair, from: (box.minX - 1, y), step: (-1, 0)),
        Self.line(pair, from: (box.maxX + 1, y), step: (1, 0)))
    }
  }

  /// The colour of a straight run of `lineRun` pixels both images hold alike from a point
  /// outward, when it is one colour that is not background (the box's surroundings are mostly
  /// background; a grid line, an axis or a frame crosses them).
  private static func line(_ pair: Pair, from start: (Int, Int), step: (Int, Int)) -> UInt32? {
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

  private func kind(_ survey: Survey) -> ChangeKind {
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
  private func surroundingColours() -> (reference: UInt32, actual: UInt32)? {
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
  private func survey(background: (reference: UInt32, actual: UInt32)?) -> Survey {
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
  private func fixedLine(_ x: Int, _ y: Int, background: UInt32?) -> UInt32? {
    fixedLine(x, y, along: columnLine(x), step: (0, 1), background: background)
      ?? fixedLine(x, y, along: rowLine(y), step: (1, 0), background: background)
  }

  /// `fixedLine` for the lines of one column or row.
  private func fixedLine(
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
  private func onFixedLine(_ x: Int, _ y: Int, background: UInt32?) -> Bool {
    lines.throughPixel(x, y) { fixedLine(x, y, background: background) != nil }
  }

  /// Whether a pixel both images hold alike in `colour` lies from a point in a direction,
  /// within `lineReach` (a stroke moved along a grid line covers it for a while), before any
  /// unchanged background; or other content both hold alike comes first (a grid line ends at
  /// an axis).
  private func showsUnchanged(
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

  // MARK: - Added and removed

  /// How many changed pixels show, in `image`, what lies under content: background (counted
  /// by the survey as `backgroundCount`), or a line that stays put running on through them (a
  /// grid line a removed dot uncovers). Only looked into when a few are left to explain.
  private func uncovered(
    _ survey: Survey, _ backgroundCount: Int, in word: (Int, Int) -> UInt32, _ background: UInt32
  ) -> Int {
    let count = survey.changed.count
    guard backgroundCount < count, count - backgroundCount <= count / 4 else {
      return backgroundCount
    }
    var uncovered = backgroundCount
    for packed in survey.changed {
      let x = packed & 0xFFFF_FFFF
      let y = packed >> 32
      let shown = word(x, y)
      if Word.isTransparent(shown) || Word.alike(shown, background) { continue }
      if let line = fixedLine(x, y, background: background), Word.alike(line, shown) {
        uncovered += 1
      }
    }
    return uncovered
  }

  /// Whether the changed pixels stand apart from the content the change left as it was: at
  /// most a quarter of them touch (side by side) an unchanged pixel that is not `background`
  /// in `image`, and hardly any touch one of their own colour in `content` (the image that
  /// holds the new or the gone content). New content on background touches nothing, or a
  /// grid line where it crosses one; a bolder font grows from every old stroke, and a taller
  /// bar from its old top in its own colour: changes of what was there, not additions (nor,
  /// the other way, removals). Decided per changed pixel, so content elsewhere in the box
  /// never vetoes it.
  private func standsApart(
    _ changed: [Int], in word: (Int, Int) -> UInt32, content: (Int, Int) -> UInt32,
    background: UInt32
  ) -> Bool {
    var touching = 0
    var continuing = 0
    let allowed = changed.count / 4
    let continuingAllowed = max(2, Self.allowance(changed.count))
    for packed in changed {
      let x = packed & 0xFFFF_FFFF
      let y = packed >> 32
      let own = content(x, y)
      var touches = false
      var continues = false
      for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
      where pair.contains(nx, ny) && pair.actual(nx, ny) == pair.reference(nx, ny) {
        let kept = word(nx, ny)
        guard !Word.isTransparent(kept) && !Word.alike(kept, background) else { continue }
        touches = true
        if Word.alike(kept, own) { continues = true }
      }
      if touches { touching += 1 }
      if continues { continuing += 1 }
      if touching > allowed || continuing > continuingAllowed { return false }
    }
    return true
  }

  // MARK: - Moved

  /// The candidate offsets, the smallest first.
  static let shifts: [(dx: Int, dy: Int)] = {
    let range = -ChangeClassifier.largestShift...ChangeClassifier.largestShift
    var shifts: [(dx: Int, dy: Int)] = []
    for dy in range { for dx in range where dx != 0 || dy != 0 { shifts.append((dx, dy)) } }
    return shifts.sorted { a, b in
      (abs(a.dx) + abs(a.dy), abs(a.dy), a.dy, a.dx) < (
        abs(b.dx) + abs(b.dy), abs(b.dy), b.dy, b.dx
      )
    }
  }()

  /// The smallest offset that explains the changed pixels, each of them both ways: the render
  /// shows there what the reference showed the offset away (the content arrived), and the
  /// reference's content there shows in the render the offset on (it went somewhere). Content
  /// that stays put around or under the change (grid lines, a frame) is never asked about, so
  /// it vetoes nothing; content that went missing or appeared fails the second or the first
  /// half, whatever the background around it matches.
  private func shift(_ survey: Survey) -> (dx: Int, dy: Int)? {
    // A move of a few pixels is no evidence of one: drift that matches a neighbour by chance.
    guard survey.changed.count >= Self.moveEvidence else { return nil }
    // Content that moved left a place as well as reached one: some changed pixels show
    // background only in the render, some only in the reference. Where (nearly) all show it
    // in the reference, content was drawn beside what stayed (a caption in faux bold, drawn
    // again a pixel to the right), which an offset also explains pixel by pixel.
    let count = survey.changed.count
    guard survey.referenceBackground * 8 <= count * 7, survey.actualBackground * 8 <= count * 7
    else { return nil }
    let allowed = Self.allowance(survey.changed.count)
    let background = survey.background?.reference
    let informative = informativePixels(survey.changed)
    guard informative.count >= Self.moveEvidence else { return nil }
    // Without a line that stays put around the box, no pixel is excused: every offset stops at
    // its first misses beyond the allowance.
    let linesAround = hasLinesAround(background: background)
    var scratch = ShiftScratch()
    return Self.shifts.first {
      explainsChangedPixels(
        informative, $0, allowed: allowed, background, linesAround: linesAround, &scratch)
    }
  }

  /// A changed pixel that says something about a shift, with its two colours.
  struct InformativePixel {
    let x: Int
    let y: Int
    let actual: UInt32
    let reference: UInt32
  }

  /// The changed pixels beyond the noise level of their own reference, in order: a pixel
  /// within it says nothing about a shift (every shift of a flat background matches it), and
  /// drift would keep every offset alive. The same at every offset, so set aside once.
  private func informativePixels(_ changed: [Int]) -> [InformativePixel] {
    var pixels: [InformativePixel] = []
    pixels.reserveCapacity(changed.count)
    for packed in changed {
      let x = packed & 0xFFFF_FFFF
      let y = packed >> 32
      let actual = pair.actual(x, y)
      let reference = pair.reference(x, y)
      if Word.alike(actual, reference) { continue }
      pixels.append(InformativePixel(x: x, y: y, actual: actual, reference: reference))
    }
    return pixels
  }

  /// The lists an offset's test fills, kept from one offset to the next.
  struct ShiftScratch {
    var missed: [InformativePixel] = []
    var unexplained: [Int] = []
  }

  /// Whether an offset explains the changed pixels (`informative`, the pixels beyond the noise
  /// level). A pixel on a line that stays put, or whose source is (a grid line under a moved
  /// stroke, one a moved label uncovers), says nothing either way: its colour mixes what moved
  /// with what did not. The few pixels left unexplained must lie scattered (rims drawn a
  /// little differently at the new place): a cluster of them is a change of its own, a dot
  /// added beside moved text, and then the region is no move.
  private func explainsChangedPixels(
    _ pixels: [InformativePixel], _ shift: (dx: Int, dy: Int), allowed: Int,
    _ background: UInt32?, linesAround: Bool, _ scratch: inout ShiftScratch
  ) -> Bool {
    var informative = pixels.count
    var checked = 0
    scratch.missed.removeAll(keepingCapacity: true)
    for pixel in pixels {
      let (fromX, fromY) = (pixel.x - shift.dx, pixel.y - shift.dy)
      let (toX, toY) = (pixel.x + shift.dx, pixel.y + shift.dy)
      guard pair.contains(fromX, fromY), pair.contains(toX, toY) else { continue }
      checked += 1
      guard
        !Word.alike(pixel.actual, pair.reference(fromX, fromY))
          || !Word.alike(pixel.reference, pair.actual(toX, toY))
      else { continue }
      scratch.missed.append(pixel)
      // A wrong offset misses most pixels, lines that stay put only a few: give up once a
      // half of those seen missed, before asking about lines at all.
      if checked >= 32 && scratch.missed.count * 2 > checked { return false }
      if !linesAround && scratch.missed.count > allowed { return false }
    }
    scratch.unexplained.removeAll(keepingCapacity: true)
    for pixel in scratch.missed {
      let (x, y) = (pixel.x, pixel.y)
      if onFixedLine(x, y, background: background)
        || onFixedLine(x - shift.dx, y - shift.dy, background: background)
        || onFixedLine(x + shift.dx, y + shift.dy, background: background)
      {
        (informative, checked) = (informative - 1, checked - 1)
        continue
      }
      scratch.unexplained.append(y << 32 | x)
      if scratch.unexplained.count > allowed { return false }
    }
    // Most of the change must lie where the shifted images can say something.
    return checked > 0 && checked * 2 >= informative
      && Self.largestCluster(scratch.unexplained) <= Self.scatteredPixels
  }

  /// The fewest pixels that differ beyond the noise level a move is told from.
  static let moveEvidence = 4

  /// The most unexplained pixels that may touch one another and still be a rim's.
  static let scatteredPixels = 8

  /// The size of the largest group of pixels that touch (also diagonally).
  static func largestCluster(_ pixels: [Int]) -> Int {
    var unvisited = Set(pixels)
    var largest = 0
    while let start = unvisited.popFirst() {
      var size = 0
      var stack = [start]
      while let pixel = stack.popLast() {
        size += 1
        let (x, y) = (pixel & 0xFFFF_FFFF, pixel >> 32)
        for dy in -1...1 {
          for dx in -1...1 where dx != 0 || dy != 0 {
            let neighbour = (y + dy) << 32 | (x + dx)
            if unvisited.remove(neighbour) != nil { stack.append(neighbour) }
          }
        }
      }
      largest = max(largest, size)
    }
    return largest
  }

  // MARK: - Anti-aliasing

  /// Whether every changed pixel is an anti-aliased edge or within the noise level: an edge
  /// pixel is a blend (its luma strictly between the darkest and brightest of its eight
  /// neighbours, which differ by at least `edgeContrast`) in both images, or in one of them
  /// with a difference of at most `edgeDifference` (a rim drawn with other coverage). A pixel
  /// solid in one image that differs by more is a stroke moved, added or removed, never
  /// anti-aliasing: one is enough to refuse. Solid pixels with smaller differences may be a
  /// twentieth of the change (a renderer's rounding at the ends of a stroke).
  private func onlyEdges(_ survey: Survey) -> Bool {
    let allowed = Self.allowance(survey.changed.count)
    var solid = 0
    for packed in survey.changed {
      let x = packed & 0xFFFF_FFFF
      let y = packed >> 32
      let difference = Word.largestDifference(pair.actual(x, y), pair.reference(x, y))
      if difference <= ChangeClassifier.noiseLevel { continue }
      let inActual = isBlend(x, y, pair.actual)
      let inReference = isBlend(x, y, pair.reference)
      if inActual && inReference { continue }
      if (inActual || inReference) && difference <= Self.edgeDifference { continue }
      if difference > Self.edgeDifference { return false }
      solid += 1
      if solid > allowed { return false }
    }
    return true
  }

  /// Whether the change is the content redrawn less than a pixel away: each changed pixel
  /// lies, in every channel, between the reference's value there and at one neighbour (the
  /// same neighbour for the whole region), as coverage moved by a fraction of a pixel mixes
  /// them; and no pixel differs by more than `edgeDifference`, so a stroke moved by a whole
  /// pixel, which also lies between them, is never taken for one.
  private func subPixelShift(_ survey: Survey) -> Bool {
    guard survey.largestDifference <= Self.edgeDifference else { return false }
    let allowed = Self.allowance(survey.changed.count)
    return Self.shifts.prefix(8).contains { direction in
      var outside = 0
      for packed in survey.changed {
        let x = packed & 0xFFFF_FFFF
        let y = packed >> 32
        let actual = pair.actual(x, y)
        let reference = pair.reference(x, y)
        guard !Word.alike(actual, reference),
          pair.contains(x - direction.dx, y - direction.dy)
        else { continue }
        if !Word.between(actual, reference, pair.reference(x - direction.dx, y - direction.dy)) {
          outside += 1
          if outside > allowed { return false }
        }
      }
      return true
    }
  }

  /// The largest channel difference an edge pixel may show when only one of the images blends
  /// there: half the range, what moving an edge by less than half a pixel changes.
  static let edgeDifference = 128

  private func isBlend(_ x: Int, _ y: Int, _ word: (Int, Int) -> UInt32) -> Bool {
    let center = Word.luma(word(x, y))
    var darkest = Int.max
    var brightest = Int.min
    for dy in -1...1 {
      for dx in -1...1 where (dx != 0 || dy != 0) && pair.contains(x + dx, y + dy) {
        let luma = Word.luma(word(x + dx, y + dy))
        darkest = min(darkest, luma)
        brightest = max(brightest, luma)
      }
    }
    return darkest < center && center < brightest && brightest - darkest >= Self.edgeContrast
  }

  /// The luma range (× 1000) across a pixel's neighbours from which it can be an edge's blend.
  static let edgeContrast = 32_000

  // MARK: - Recoloured

  /// The main mapping, when the colours map one to one: each reference colour to one render
  /// colour, give or take the noise level (for all but the allowance), shown by repetition (reference colours met at least
  /// twice hold three quarters of the change: one pixel per colour proves no mapping), and no
  /// pixel of the most common reference colours left as it was inside the box (the same shape).
  /// A gradient recoloured maps each of its many colours. The main mapping is the most salient.
  private func recolouring(_ survey: Survey) -> ColourMapping? {
    let count = survey.changed.count
    guard let mappings = mappings(survey.changed, allowed: Self.allowance(count)) else {
      return nil
    }
    // Of a reference colour's new colours met equally often, the one met first is its main
    // one: the mappings come in the order they were met, so the kind is the same every run.
    var targets: [UInt32: (to: UInt32, count: Int, total: Int)] = [:]
    for (key, occurrences) in mappings {
      let from = UInt32(truncatingIfNeeded: key >> 32)
      let to = UInt32(truncatingIfNeeded: key)
      var entry = targets[from] ?? (to, 0, 0)
      entry.total += occurrences
      if occurrences > entry.count { (entry.to, entry.count) = (to, occurrences) }
      targets[from] = entry
    }
    // A reference colour's pixels explained: those mapped to its main new colour, or within the
    // noise level of it (a gradient's colours round a level apart at a new place).
    var explained = 0
    for (key, occurrences) in mappings {
      let from = UInt32(truncatingIfNeeded: key >> 32)
      if let main = targets[from], Word.alike(UInt32(truncatingIfNeeded: key), main.to) {
        explained += occurrences
      }
    }
    let repeated = targets.values.reduce(0) { $0 + ($1.total >= 2 ? $1.total : 0) }
    let common = targets.sorted { ($0.value.total, $1.key) > ($1.value.total, $0.key) }
      .prefix(Self.shapeColours)
    // Background turned into a colour is content drawn, not a recolouring (a bar that grew);
    // a colour turned into background is content gone (a bar that shrank).
    if let background = survey.background,
      let largest = targets.max(by: { ($0.value.total, $1.key) < ($1.value.total, $0.key) }),
      Word.alike(largest.key, background.reference)
        || Word.alike(largest.value.to, background.actual)
    {
      return nil
    }
    guard count - explained <= Self.allowance(count), repeated * 4 >= count * 3,
      keptCount(of: common.map(\.key)) <= Self.allowance(common.reduce(0) { $0 + $1.value.total })
    else { return nil }
    // The mapping a person notices most: its pixels times how far the colour moved, so a
    // recoloured line wins over the faint tint of the area under it.
    let salience = { (entry: (key: UInt32, value: (to: UInt32, count: Int, total: Int))) in
      entry.value.count * Word.largestDifference(entry.key, entry.value.to)
    }
    guard let main = targets.max(by: { (salience($0), $1.key) < (salience($1), $0.key) }) else {
      return nil
    }
    return ColourMapping(from: Word.color(main.key), to: Word.color(main.value.to))
  }

  /// How many of the most common reference colours the same-shape test looks at.
  static let shapeColours = 8

  /// How often each (reference colour, render colour) pair occurs among the changed pixels,
  /// keyed from << 32 | to, in the order first met, counted per run of one pair (a filled
  /// shape costs few dictionary updates); nil as soon as more than `allowed` pixels map a
  /// reference colour elsewhere than its first pixel did, which no recolouring does (drift and
  /// new content stop early).
  private func mappings(_ changed: [Int], allowed: Int) -> [(key: UInt64, count: Int)]? {
    var first: [UInt32: UInt32] = [:]
    var mappings: [(key: UInt64, count: Int)] = []
    var index: [UInt64: Int] = [:]
    func add(_ key: UInt64, _ count: Int) {
      if let known = index[key] {
        mappings[known].count += count
      } else {
        index[key] = mappings.count
        mappings.append((key, count))
      }
    }
    var departures = 0
    var runKey: UInt64 = 0
    var runLength = 0
    for packed in changed {
      let x = packed & 0xFFFF_FFFF
      let y = packed >> 32
      let from = pair.reference(x, y)
      let to = pair.actual(x, y)
      let key = UInt64(from) << 32 | UInt64(to)
      if key == runKey && runLength > 0 {
        runLength += 1
        continue
      }
      if runLength > 0 { add(runKey, runLength) }
      (runKey, runLength) = (key, 1)
      if let seen = first[from] {
        if !Word.alike(seen, to) {
          departures += 1
          if departures > allowed { return nil }
        }
      } else {
        first[from] = to
      }
    }
    if runLength > 0 { add(runKey, runLength) }
    return mappings
  }

  /// Pixels of the box that had one of the colours in the reference and still have it.
  private func keptCount(of colours: [UInt32]) -> Int {
    var kept = 0
    for y in box.minY...box.maxY {
      for x in box.minX...box.maxX {
        let reference = pair.reference(x, y)
        if reference == pair.actual(x, y) && colours.contains(reference) { kept += 1 }
      }
    }
    return kept
  }
}
