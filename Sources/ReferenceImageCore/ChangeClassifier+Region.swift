/// Judges one region of a pair: gathers its changed pixels once, then runs
/// `ChangeClassifier`'s tests in order, each a value computed from what was gathered.
struct RegionJudge {
  let pair: Pair
  let box: PixelBox

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
    if let shift = shift(survey) { return .moved(dx: shift.dx, dy: shift.dy) }
    if onlyEdges(survey) {
      return .antiAliasingOrNoise(largestDifference: survey.largestDifference)
    }
    let allowed = Self.allowance(count)
    if count - survey.referenceBackground <= allowed,
      keptContent(around: survey.background?.reference) <= allowed
    {
      return .added
    }
    if count - survey.actualBackground <= allowed,
      keptContent(around: survey.background?.actual) <= allowed
    {
      return .removed
    }
    if let mapping = recolouring(survey) { return .recoloured(mapping) }
    return .changed
  }

  // MARK: - The survey

  /// The most common colour just around the box in the reference and in the render; nil for a
  /// box that covers the whole common area, where nothing says what background is.
  private func surroundingColours() -> (reference: UInt32, actual: UInt32)? {
    var referenceCounts: [UInt32: Int] = [:]
    var actualCounts: [UInt32: Int] = [:]
    func note(_ x: Int, _ y: Int) {
      guard pair.contains(x, y) else { return }
      referenceCounts[pair.reference(x, y), default: 0] += 1
      actualCounts[pair.actual(x, y), default: 0] += 1
    }
    for x in (box.minX - 1)...(box.maxX + 1) {
      note(x, box.minY - 1)
      note(x, box.maxY + 1)
    }
    for y in box.minY...box.maxY {
      note(box.minX - 1, y)
      note(box.maxX + 1, y)
    }
    guard let reference = referenceCounts.max(by: { $0.value < $1.value })?.key,
      let actual = actualCounts.max(by: { $0.value < $1.value })?.key
    else { return nil }
    return (reference, actual)
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

  // MARK: - Added and removed

  /// The box's unchanged pixels that are not `background`: content the change touched rather
  /// than stood apart from. New content on empty background keeps none (a legend entry added);
  /// a bolder font keeps every old stroke, so it is no addition.
  private func keptContent(around background: UInt32?) -> Int {
    guard let background else { return 0 }
    var kept = 0
    for y in box.minY...box.maxY {
      for x in box.minX...box.maxX {
        let word = pair.reference(x, y)
        guard word == pair.actual(x, y) else { continue }
        if !Word.isTransparent(word) && !Word.alike(word, background) { kept += 1 }
      }
    }
    return kept
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

  /// The smallest offset at which the render's box equals the reference's: first checked on
  /// the changed pixels alone (a wrong offset fails within a few of them), then on every pixel
  /// of the box.
  private func shift(_ survey: Survey) -> (dx: Int, dy: Int)? {
    let allowed = Self.allowance(survey.changed.count)
    for shift in Self.shifts where explainsChangedPixels(survey.changed, shift, allowed: allowed) {
      if explainsBox(shift, allowed: allowed) { return shift }
    }
    return nil
  }

  private func explainsChangedPixels(_ changed: [Int], _ shift: (dx: Int, dy: Int), allowed: Int)
    -> Bool
  {
    var informative = 0
    var checked = 0
    var mismatched = 0
    for packed in changed {
      let x = packed & 0xFFFF_FFFF
      let y = packed >> 32
      let actual = pair.actual(x, y)
      // A pixel within the noise level of its own reference says nothing about a shift (every
      // shift of a flat background matches it); drift would keep every offset alive.
      if Word.alike(actual, pair.reference(x, y)) { continue }
      informative += 1
      let sourceX = x - shift.dx
      let sourceY = y - shift.dy
      guard pair.contains(sourceX, sourceY) else { continue }
      checked += 1
      if !Word.alike(actual, pair.reference(sourceX, sourceY)) {
        mismatched += 1
        // A wrong offset misses most pixels: give up once an eighth of those seen missed.
        if mismatched > allowed || (checked >= 32 && mismatched * 8 > checked) { return false }
      }
    }
    // Most of the change must lie where the shifted reference can say something.
    return checked > 0 && checked * 2 >= informative
  }

  private func explainsBox(_ shift: (dx: Int, dy: Int), allowed: Int) -> Bool {
    var mismatched = 0
    for y in box.minY...box.maxY {
      for x in box.minX...box.maxX {
        let sourceX = x - shift.dx
        let sourceY = y - shift.dy
        guard pair.contains(sourceX, sourceY) else { continue }
        if !Word.alike(pair.actual(x, y), pair.reference(sourceX, sourceY)) {
          mismatched += 1
          if mismatched > allowed { return false }
        }
      }
    }
    return true
  }

  // MARK: - Anti-aliasing

  /// Whether (nearly) every changed pixel is an anti-aliased edge: in one of the images its luma
  /// lies strictly between the darkest and brightest of its eight neighbours, and those differ
  /// by at least `edgeContrast` levels. A solid shape's pixels, moved, added or recoloured,
  /// equal their darkest or brightest neighbour in both; a gradient's lie between neighbours
  /// only a few levels apart.
  private func onlyEdges(_ survey: Survey) -> Bool {
    let allowed = Self.allowance(survey.changed.count)
    var solid = 0
    for packed in survey.changed {
      let x = packed & 0xFFFF_FFFF
      let y = packed >> 32
      if !isBlend(x, y, pair.actual) && !isBlend(x, y, pair.reference) {
        solid += 1
        if solid > allowed { return false }
      }
    }
    return true
  }

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
  /// keyed from << 32 | to, counted per run of one pair (a filled shape costs few dictionary
  /// updates); nil as soon as more than `allowed` pixels map a reference colour elsewhere than
  /// its first pixel did, which no recolouring does (drift and new content stop early).
  private func mappings(_ changed: [Int], allowed: Int) -> [UInt64: Int]? {
    var first: [UInt32: UInt32] = [:]
    var mappings: [UInt64: Int] = [:]
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
      if runLength > 0 { mappings[runKey, default: 0] += runLength }
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
    if runLength > 0 { mappings[runKey, default: 0] += runLength }
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
