/// Whether a region is only anti-aliased edges, or a recolouring.
extension RegionJudge {
  // MARK: - Anti-aliasing

  /// Whether every changed pixel is an anti-aliased edge or within the noise level: an edge
  /// pixel is a blend (its luma strictly between the darkest and brightest of its eight
  /// neighbours, which differ by at least `edgeContrast`) in both images, or in one of them
  /// with a difference of at most `edgeDifference` (a rim drawn with other coverage). A pixel
  /// solid in one image that differs by more is a stroke moved, added or removed, never
  /// anti-aliasing: one is enough to refuse. Solid pixels with smaller differences may be a
  /// twentieth of the change (a renderer's rounding at the ends of a stroke).
  func onlyEdges(_ survey: Survey) -> Bool {
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
  func subPixelShift(_ survey: Survey) -> Bool {
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

  func isBlend(_ x: Int, _ y: Int, _ word: (Int, Int) -> UInt32) -> Bool {
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
  func recolouring(_ survey: Survey) -> ColourMapping? {
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
  func mappings(_ changed: [Int], allowed: Int) -> [(key: UInt64, count: Int)]? {
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
  func keptCount(of colours: [UInt32]) -> Int {
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
