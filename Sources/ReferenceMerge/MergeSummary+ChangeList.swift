import Foundation
import ReferenceImageCore

extension MergeSummary {
  /// The changed paths, in path order. A summary made from a plan makes each change from the
  /// plan's item when it is read, so the list costs 4 bytes a change or, when fewer, an item
  /// that is no change (a merge that changes every reference but one costs 4 bytes), and none
  /// when every item is one (a first merge). Changes held as values, or an outcome kept beside
  /// each position, would grow with the merge and be a visible part of its peak.
  /// A summary read back from `--json` holds the changes it read.
  public struct ChangeList: RandomAccessCollection, Decodable, Sendable,
    ExpressibleByArrayLiteral
  {
    private enum Storage: Sendable {
      case listed([Change])
      /// The plan's items themselves, shared with the plan, the paths a failed apply did not
      /// reach, and how an item becomes a change.
      case derived(
        MergePlan.ItemList, unreached: Set<String>, @Sendable (MergePlan.Item) -> Change)
    }

    private let storage: Storage
    /// The changes' positions in `storage`; nil when every position is one.
    private let positions: Positions?
    public let endIndex: Int
    /// Each changed region's kind by path, found by the review report after the summary was
    /// made (`Change.kinds`).
    var regionKinds: [String: [RegionKind]] = [:]

    /// The changes of the items whose outcome is not `unchanged`, made as they are read.
    /// - Parameter unreached: The paths a failed apply did not reach (`Change.notWritten`).
    init(
      deriving items: MergePlan.ItemList, unreached: Set<String>,
      make: @escaping @Sendable (MergePlan.Item) -> Change
    ) {
      let count = items.count { $0.outcome != .unchanged }
      endIndex = count
      if count == items.count {
        positions = nil
      } else {
        // The fewer of the two: a merge that changes every reference but a few lists those.
        let listsChanges = count <= items.count - count
        // Sized once: an array grown by doubling would hold up to twice the list.
        var listed: [Int32] = []
        listed.reserveCapacity(listsChanges ? count : items.count - count)
        for (position, item) in items.enumerated()
        where (item.outcome != .unchanged) == listsChanges {
          listed.append(Int32(position))
        }
        positions = listsChanges ? .changes(listed) : .allBut(listed)
      }
      storage = .derived(items, unreached: unreached, make)
    }

    public init(_ changes: [Change]) {
      positions = nil
      endIndex = changes.count
      storage = .listed(changes)
    }

    public init(arrayLiteral changes: Change...) { self.init(changes) }

    public init(from decoder: Decoder) throws {
      self.init(try [Change](from: decoder))
    }

    public var startIndex: Int { 0 }

    public subscript(index: Int) -> Change {
      var change: Change
      switch storage {
      case .listed(let changes): change = changes[position(index)]
      case .derived(let items, _, let make): change = make(items[position(index)])
      }
      if let kinds = regionKinds[change.path] { change.kinds = kinds }
      return change
    }

    /// The changes with an outcome (any, when nil) that were, or were not, written (either,
    /// when nil), made only for those.
    public func matching(_ outcome: MergePlan.Outcome?, notWritten: Bool? = nil)
      -> LazyMapCollection<LazyFilterCollection<Range<Int>>, Change>
    {
      indices.lazy.filter { index in
        (outcome == nil || self.outcome(index) == outcome)
          && (notWritten == nil || self.notWritten(index) == notWritten)
      }.map { self[$0] }
    }

    private func position(_ index: Int) -> Int {
      positions?.position(ofChange: index) ?? index
    }

    /// Where the changes are among the plan's items.
    private enum Positions: Sendable {
      /// The changes' positions, in order.
      case changes([Int32])
      /// The positions of the items that are no change, in order: the changes are the rest.
      case allBut([Int32])

      func position(ofChange index: Int) -> Int {
        switch self {
        case .changes(let positions): return Int(positions[index])
        case .allBut(let others):
          // Before the other at `j`, `others[j] - j` changes come: the change is after each
          // other with at most `index` changes before it.
          return index + others.indices.lowerBound { Int(others[$0]) - $0 <= index }
        }
      }
    }

    /// A change's outcome, without making the change.
    private func outcome(_ index: Int) -> MergePlan.Outcome {
      switch storage {
      case .listed(let changes): changes[position(index)].outcome
      case .derived(let items, _, _): items[position(index)].outcome
      }
    }

    /// Whether a change was not written, without making the change.
    private func notWritten(_ index: Int) -> Bool {
      switch storage {
      case .listed(let changes): changes[position(index)].notWritten == true
      case .derived(let items, let unreached, _):
        !unreached.isEmpty && unreached.contains(items[position(index)].path)
      }
    }
  }
}
