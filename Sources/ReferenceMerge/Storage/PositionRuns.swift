/// Positions (of a plan's items) in the order they came.
///
/// Rule: a position that does not follow the one before it is stored as itself; a stretch of
/// positions that each follow the one before is stored as its first and, after it, minus how
/// many follow. Cost: 4 bytes a lone position, 8 a stretch of any length; appending and
/// walking are O(1) a position. A merge writes most of an archive's items one after another,
/// so a first merge's written list is about 8 bytes an archive.
struct PositionRuns: Sequence, Sendable {
  /// Each position that does not follow the one before it; after it, when the next ones do,
  /// minus how many follow.
  private var entries: [Int32] = []

  var isEmpty: Bool { entries.isEmpty }

  mutating func append(_ position: Int) {
    let position = Int32(position)
    let count = entries.count
    if let last = entries.last, last < 0, entries[count - 2] - last + 1 == position {
      entries[count - 1] -= 1
    } else if let last = entries.last, last >= 0, last + 1 == position {
      entries.append(-1)
    } else {
      entries.append(position)
    }
  }

  func makeIterator() -> some IteratorProtocol<Int> {
    var index = 0
    var start = 0
    var next = 0
    var end = 0
    return AnyIterator {
      if next < end {
        next += 1
        return next
      }
      guard index < entries.count else { return nil }
      let entry = Int(entries[index])
      index += 1
      if entry < 0 {
        (next, end) = (start + 1, start - entry)
        return next
      }
      start = entry
      return entry
    }
  }
}
