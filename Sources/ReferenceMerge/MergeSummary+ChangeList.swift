import Foundation
import ReferenceImageCore

extension MergeSummary {
  /// The changed paths, in path order. A summary made from a plan makes each change from the
  /// plan's item when it is read, so the list costs nothing per path: held as changes, it was
  /// 5.6 MB of the peak of a merge of 50,000 new images (`valgrind --tool=massif`).
  /// A summary read back from `--json` holds the changes it read.
  public struct ChangeList: Collection, Decodable, Sendable, ExpressibleByArrayLiteral {
    private enum Storage: Sendable {
      case listed([Change])
      case derived(Derivation)
    }

    /// How a plan's items become changes: the items themselves, shared with the plan.
    struct Derivation: Sendable {
      let items: [MergePlan.Item]
      let make: @Sendable (MergePlan.Item) -> Change
    }

    private var storage: Storage
    /// Each changed region's kind by path, found by the review report after the summary was
    /// made (`Change.kinds`).
    var regionKinds: [String: [RegionKind]] = [:]

    /// The changes made from the items whose outcome is not `unchanged`, as they are read.
    init(deriving items: [MergePlan.Item], make: @escaping @Sendable (MergePlan.Item) -> Change) {
      storage = .derived(Derivation(items: items, make: make))
    }

    public init(_ changes: [Change]) { storage = .listed(changes) }

    public init(arrayLiteral changes: Change...) { self.init(changes) }

    public init(from decoder: Decoder) throws {
      self.init(try [Change](from: decoder))
    }

    /// A change's position: in a derived list, its item's position in the plan.
    public var startIndex: Int {
      switch storage {
      case .listed: 0
      case .derived(let derivation): nextChanged(from: 0, in: derivation.items)
      }
    }

    public var endIndex: Int {
      switch storage {
      case .listed(let changes): changes.count
      case .derived(let derivation): derivation.items.count
      }
    }

    public func index(after index: Int) -> Int {
      switch storage {
      case .listed: index + 1
      case .derived(let derivation): nextChanged(from: index + 1, in: derivation.items)
      }
    }

    public subscript(position: Int) -> Change {
      var change: Change
      switch storage {
      case .listed(let changes): change = changes[position]
      case .derived(let derivation): change = derivation.make(derivation.items[position])
      }
      if let kinds = regionKinds[change.path] { change.kinds = kinds }
      return change
    }

    /// The first position at or after `start` whose item changes something.
    private func nextChanged(from start: Int, in items: [MergePlan.Item]) -> Int {
      var index = start
      while index < items.count && items[index].outcome == .unchanged { index += 1 }
      return index
    }
  }
}
