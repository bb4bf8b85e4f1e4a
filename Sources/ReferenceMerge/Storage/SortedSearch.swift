extension RandomAccessCollection {
  /// The first position whose element is not before the one sought, in a collection sorted so
  /// that every element `isBefore` says true of comes first: a binary search, `endIndex` when
  /// there is none.
  func lowerBound(_ isBefore: (Element) -> Bool) -> Index {
    var low = startIndex
    var count = self.count
    while count > 0 {
      let half = count / 2
      let middle = index(low, offsetBy: half)
      if isBefore(self[middle]) {
        low = index(after: middle)
        count -= half + 1
      } else {
        count = half
      }
    }
    return low
  }
}

extension Array where Element: Comparable {
  /// Whether a sorted array holds an element, by binary search.
  func sortedContains(_ element: Element) -> Bool {
    let index = lowerBound { $0 < element }
    return index < count && self[index] == element
  }
}
