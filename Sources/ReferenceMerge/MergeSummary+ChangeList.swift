import Foundation
import ReferenceImageCore

extension MergeSummary {
  /// The changed paths, in path order. A summary made from a plan makes each change from the
  /// plan's item when it is read, so the list costs 8 bytes a change: held as changes, it was
  /// 5.6 MB of the peak of a merge of 50,000 new images (`valgrind --tool=massif`).
  /// A summary read back from `--json` holds the changes it read.
  public struct ChangeList: RandomAccessCollection, Decodable, Sendable,
    ExpressibleByArrayLiteral
  {
    /// What a change is listed by, kept for each so that picking some (`matching`) makes only
    /// those: the summary's text picks by outcome several times.
    private struct Entry: Sendable {
      /// The change's position in `Storage`: a plan item's, or a read change's.
      var position: Int32
      var outcome: MergePlan.Outcome
      var notWritten: Bool
    }

    private enum Storage: Sendable {
      case listed([Change])
      /// The plan's items themselves, shared with the plan, and how one becomes a change.
      case derived([MergePlan.Item], @Sendable (MergePlan.Item) -> Change)
    }

    private let storage: Storage
    private let entries: [Entry]
    /// Each changed region's kind by path, found by the review report after the summary was
    /// made (`Change.kinds`).
    var regionKinds: [String: [RegionKind]] = [:]

    /// The changes of the items whose outcome is not `unchanged`, made as they are read.
    /// - Parameter unreached: The paths a failed apply did not reach (`Change.notWritten`).
    init(
      deriving items: [MergePlan.Item], unreached: Set<String>,
      make: @escaping @Sendable (MergePlan.Item) -> Change
    ) {
      var entries: [Entry] = []
      // Sized once: an array grown by doubling would hold up to twice the list.
      entries.reserveCapacity(items.count { $0.outcome != .unchanged })
      for (position, item) in items.enumerated() where item.outcome != .unchanged {
        entries.append(
          Entry(
            position: Int32(position), outcome: item.outcome,
            notWritten: !unreached.isEmpty && unreached.contains(item.path)))
      }
      self.entries = entries
      storage = .derived(items, make)
    }

    public init(_ changes: [Change]) {
      entries = changes.enumerated().map {
        Entry(position: Int32($0), outcome: $1.outcome, notWritten: $1.notWritten == true)
      }
      storage = .listed(changes)
    }

    public init(arrayLiteral changes: Change...) { self.init(changes) }

    public init(from decoder: Decoder) throws {
      self.init(try [Change](from: decoder))
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }

    public subscript(index: Int) -> Change {
      let position = Int(entries[index].position)
      var change: Change
      switch storage {
      case .listed(let changes): change = changes[position]
      case .derived(let items, let make): change = make(items[position])
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
        let entry = entries[index]
        return (outcome == nil || entry.outcome == outcome)
          && (notWritten == nil || entry.notWritten == notWritten)
      }.map { self[$0] }
    }
  }
}
