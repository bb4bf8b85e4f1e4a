extension MergePlan {
  /// The plan's items, in order, kept as runs.
  ///
  /// Rule: items that chose consecutive images of one source's list are one run, however
  /// many they are; an item whose outcome is not the one most of its run has is listed beside
  /// the runs. A merge decides most of an archive's images alike (all added, or all
  /// unchanged), and a source's images are sorted by path as the plan is, so its items follow
  /// each other: a fleet's first merge is about one run an archive. An item kept on its own
  /// (rivals, a replaced digest held apart, an item built from values) is a run of one.
  ///
  /// Cost: 16 bytes a run and 8 an item of another outcome. Walking the list (`for`, `map`,
  /// `filter`) costs O(1) a step. The subscript finds the position's run by binary search,
  /// O(log runs), not O(1): it stays a `RandomAccessCollection` because the planner finds an
  /// item by path with a binary search over the sorted items (`MergePlanner.item(at:in:)`),
  /// O(log items × log runs), and a position is what the applier and the change list keep of
  /// an item (4 bytes). Code that visits every item walks it rather than indexing.
  public struct ItemList: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    /// Items that share an anchor and an outcome, whose images follow each other in the
    /// anchor's list.
    struct Run: Sendable {
      /// The items' anchor, by index into `anchors`.
      var anchor: UInt32
      /// The first item's index in its list.
      var firstImage: Int32
      /// The position after the run's last item.
      var end: UInt32
      /// The items' outcome.
      var outcome: Outcome
    }

    /// An item whose outcome is not its run's: a merge that updates every tenth reference
    /// cut a source's run into runs of one and nine (the 500,000-image fleet's 5,000 runs into
    /// 100,000).
    struct OtherOutcome: Sendable {
      var position: UInt32
      var outcome: Outcome
    }

    private var runs: [Run] = []
    /// Sorted by position.
    private var otherOutcomes: [OtherOutcome] = []
    private var anchors: [Anchor] = []
    /// The anchor of each source's list, so that all its runs share one.
    private var listAnchors: [ObjectIdentifier: UInt32] = [:]

    /// No items.
    public init() {}

    public init(arrayLiteral items: Item...) { self.init(items) }

    /// The items, in order.
    public init(_ items: some Sequence<Item>) {
      for item in items { append(item) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { runs.last.map { Int($0.end) } ?? 0 }

    public subscript(position: Int) -> Item {
      precondition(position >= 0 && position < endIndex, "item index out of range")
      let runIndex = run(containing: position)
      let run = runs[runIndex]
      return item(
        in: run, at: position - start(of: runIndex),
        outcome: otherOutcome(at: position) ?? run.outcome)
    }

    /// Walks the runs: a step costs no search.
    public struct Iterator: IteratorProtocol {
      fileprivate let list: ItemList
      fileprivate var runIndex = 0
      fileprivate var position = 0
      /// The next item whose outcome is not its run's, by index into `otherOutcomes`.
      fileprivate var otherIndex = 0

      public mutating func next() -> Item? {
        guard runIndex < list.runs.count else { return nil }
        let run = list.runs[runIndex]
        var outcome = run.outcome
        if otherIndex < list.otherOutcomes.count,
          list.otherOutcomes[otherIndex].position == position
        {
          outcome = list.otherOutcomes[otherIndex].outcome
          otherIndex += 1
        }
        let item = list.item(in: run, at: position - list.start(of: runIndex), outcome: outcome)
        position += 1
        if position == Int(run.end) { runIndex += 1 }
        return item
      }
    }

    public func makeIterator() -> Iterator { Iterator(list: self) }

    /// How many runs hold the items: what the list costs, for tests.
    var runCount: Int { runs.count }
    /// How many items have an outcome other than their run's: what else it costs, for tests.
    var otherOutcomeCount: Int { otherOutcomes.count }

    /// Adds an item at the end: to its predecessor's run when it continues it.
    mutating func append(_ item: Item) {
      let list = item.imageList
      if let list, let last = runs.last, listAnchors[ObjectIdentifier(list)] == last.anchor,
        item.imageIndex == last.firstImage + Int32(Int(last.end) - start(of: runs.count - 1))
      {
        if item.outcome != last.outcome {
          otherOutcomes.append(OtherOutcome(position: last.end, outcome: item.outcome))
        }
        runs[runs.count - 1].end += 1
        rebaseLastRunIfMostAreOther()
        return
      }
      runs.append(
        Run(
          anchor: anchorIndex(of: item, list: list), firstImage: item.imageIndex,
          end: UInt32(endIndex + 1), outcome: item.outcome))
    }

    /// Lets go of the room the runs' array grew into (up to as much again as it holds): once
    /// the items are all added.
    mutating func fit() {
      runs = runs.withUnsafeBufferPointer { Array($0) }
      otherOutcomes = otherOutcomes.withUnsafeBufferPointer { Array($0) }
    }

    /// Gives the last run the outcome most of its items have, when more than half are other:
    /// its first item's outcome is not always that one (a fleet's archive whose first
    /// reference is updated and the next nine unchanged). Looked at when the run's length is a
    /// power of two, so that all the looking costs at most twice the run.
    private mutating func rebaseLastRunIfMostAreOther() {
      let start = start(of: runs.count - 1)
      let length = endIndex - start
      guard length & (length - 1) == 0 else { return }
      let firstOther = firstOtherOutcome(atOrAfter: start)
      guard 2 * (otherOutcomes.count - firstOther) > length else { return }
      let outcomes = (start..<start + length).map {
        otherOutcome(at: $0) ?? runs[runs.count - 1].outcome
      }
      let counts = Dictionary(outcomes.map { ($0, 1) }, uniquingKeysWith: +)
      guard
        let base = Outcome.allCases.max(by: { counts[$0, default: 0] < counts[$1, default: 0] })
      else { return }
      runs[runs.count - 1].outcome = base
      otherOutcomes.removeSubrange(firstOther...)
      for (offset, outcome) in outcomes.enumerated() where outcome != base {
        otherOutcomes.append(OtherOutcome(position: UInt32(start + offset), outcome: outcome))
      }
    }

    /// Adds items at the end.
    mutating func append(contentsOf items: some Sequence<Item>) {
      for item in items { append(item) }
    }

    static func += (list: inout ItemList, items: some Sequence<Item>) {
      list.append(contentsOf: items)
    }

    /// Removes the items that match.
    mutating func removeAll(where shouldBeRemoved: (Item) -> Bool) {
      var kept = ItemList()
      for item in self where !shouldBeRemoved(item) { kept.append(item) }
      self = kept
    }

    /// The position of the first item of a run.
    private func start(of runIndex: Int) -> Int {
      runIndex == 0 ? 0 : Int(runs[runIndex - 1].end)
    }

    /// The index of the run that holds a position.
    private func run(containing position: Int) -> Int {
      runs.lowerBound { Int($0.end) <= position }
    }

    private func item(in run: Run, at offset: Int, outcome: Outcome) -> Item {
      Item(
        anchor: anchors[Int(run.anchor)], imageIndex: run.firstImage + Int32(offset),
        outcome: outcome)
    }

    /// The index in `otherOutcomes` of the first at or after a position.
    private func firstOtherOutcome(atOrAfter position: Int) -> Int {
      otherOutcomes.lowerBound { Int($0.position) < position }
    }

    /// The outcome of the item at a position when it is not its run's.
    private func otherOutcome(at position: Int) -> Outcome? {
      let index = firstOtherOutcome(atOrAfter: position)
      guard index < otherOutcomes.count, Int(otherOutcomes[index].position) == position else {
        return nil
      }
      return otherOutcomes[index].outcome
    }

    /// The anchor of an item's new run: its list's, or one of its own.
    private mutating func anchorIndex(of item: Item, list: SourceImages?) -> UInt32 {
      if let list, let shared = listAnchors[ObjectIdentifier(list)] { return shared }
      let index = UInt32(anchors.count)
      anchors.append(item.anchor)
      if let list { listAnchors[ObjectIdentifier(list)] = index }
      return index
    }
  }
}
