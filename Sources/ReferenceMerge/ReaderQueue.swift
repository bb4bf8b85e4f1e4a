/// Readers of sorted runs, by their positions, ordered by a comparison of what each reads
/// next, smallest first: a binary heap, for merging many sorted runs into one (k-way).
struct ReaderQueue {
  private var heap: [Int] = []
  private let precedes: (Int, Int) -> Bool

  init(_ readers: [Int], by precedes: @escaping (Int, Int) -> Bool) {
    self.precedes = precedes
    for reader in readers { insert(reader) }
  }

  var first: Int? { heap.first }

  mutating func insert(_ reader: Int) {
    heap.append(reader)
    var child = heap.count - 1
    while child > 0, precedes(heap[child], heap[(child - 1) / 2]) {
      heap.swapAt(child, (child - 1) / 2)
      child = (child - 1) / 2
    }
  }

  mutating func popFirst() -> Int? {
    guard let first = heap.first else { return nil }
    heap.swapAt(0, heap.count - 1)
    heap.removeLast()
    sinkFirst()
    return first
  }

  /// Puts the first reader back in its place after it moved on to its next item: where runs
  /// barely overlap it stays first, at two comparisons, where a pop and an insert took about
  /// two per level of the heap (13 levels for 5,000 archives).
  mutating func firstMovedOn() { sinkFirst() }

  /// Whether another reader reads what the first reads: one of the first's two children does
  /// then, since between the first and any reader sit only readers no larger than that one.
  func firstHasTie(_ isTie: (Int) -> Bool) -> Bool {
    heap.indices.dropFirst().prefix(2).contains { isTie(heap[$0]) }
  }

  private mutating func sinkFirst() {
    var parent = 0
    while true {
      var smallest = parent
      for child in (2 * parent + 1)...(2 * parent + 2)
      where child < heap.count && precedes(heap[child], heap[smallest]) {
        smallest = child
      }
      guard smallest != parent else { return }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
  }
}

extension ReaderQueue {
  /// Merges lists of images each sorted by path (k-way), calling `body` with each path's
  /// places in path order, a path's places in list order. It holds one place per list: an
  /// array of every place, sorted, would cost a merge of many archives 8 bytes an image.
  /// - Parameters:
  ///   - counts: How many images each list holds.
  ///   - path: The path of the image at a place.
  static func forEachPath(
    inLists counts: [Int], path: (MergePlan.Place) -> PooledPath,
    _ body: ([MergePlan.Place]) -> Void
  ) {
    withoutActuallyEscaping(path) { path in
      var next = Array(repeating: Int32(0), count: counts.count)
      let head = { (list: Int) in MergePlan.Place(source: Int32(list), image: next[list]) }
      var queue = ReaderQueue(counts.indices.filter { counts[$0] > 0 }) { a, b in
        let order = path(head(a)).order(to: path(head(b)))
        return order != 0 ? order < 0 : a < b
      }
      var places: [MergePlan.Place] = []
      while let first = queue.first {
        let firstPath = path(head(first))
        places.removeAll(keepingCapacity: true)
        // Most paths are one list's alone: that list moves on in place.
        if !queue.firstHasTie({ path(head($0)).order(to: firstPath) == 0 }) {
          places.append(head(first))
          body(places)
          next[first] += 1
          if next[first] < counts[first] { queue.firstMovedOn() } else { _ = queue.popFirst() }
          continue
        }
        while let list = queue.first, path(head(list)).order(to: firstPath) == 0 {
          places.append(head(queue.popFirst()!))
        }
        body(places)
        for place in places {
          next[Int(place.source)] += 1
          if next[Int(place.source)] < counts[Int(place.source)] { queue.insert(Int(place.source)) }
        }
      }
    }
  }
}
