/// Whether a region's content was added, removed or moved.
extension RegionJudge {
  // MARK: - Added and removed

  /// How many changed pixels show, in `image`, what lies under content: background (counted
  /// by the survey as `backgroundCount`), or a line that stays put running on through them (a
  /// grid line a removed dot uncovers). Only looked into when a few are left to explain.
  func uncovered(
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
  func standsApart(
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
  func shift(_ survey: Survey) -> (dx: Int, dy: Int)? {
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
  func informativePixels(_ changed: [Int]) -> [InformativePixel] {
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
  func explainsChangedPixels(
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
}
