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
    var parent = 0
    while true {
      var smallest = parent
      for child in (2 * parent + 1)...(2 * parent + 2)
      where child < heap.count && precedes(heap[child], heap[smallest]) {
        smallest = child
      }
      guard smallest != parent else { return first }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
  }
}
