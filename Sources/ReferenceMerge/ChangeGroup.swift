/// References that changed the same way, as the review report found them: the same kinds of
/// change with the same parameters ("recoloured #16A34A → #9333EA"), and the same pixels where
/// a kind has no parameter (`ChangeFingerprint`). Beyond the byte-identical changes the page
/// already groups; the summaries lead with them when many references changed.
public struct ChangeGroup: Decodable, Sendable, Equatable {
  /// The fingerprint's digest, as the review data's `changeGroup`.
  public var key: String
  /// The kinds in words.
  public var label: String
  /// The references, package-relative, in the order the report met them.
  public var paths: [String]

  /// Creates a group.
  public init(key: String, label: String, paths: [String]) {
    self.key = key
    self.label = label
    self.paths = paths
  }

  /// From this many changed references on, the summaries lead with the groups.
  public static let leadingFrom = 20
  /// How many groups a summary lists before it counts the rest.
  public static let listLimit = 10

  /// The groups of several references, the largest first (by label on a tie), from
  /// (key, label, path) triples in the order met.
  public static func grouping(_ members: [(key: String, label: String, path: String)])
    -> [ChangeGroup]
  {
    var groups: [String: ChangeGroup] = [:]
    var order: [String] = []
    for member in members {
      if groups[member.key] == nil {
        groups[member.key] = ChangeGroup(key: member.key, label: member.label, paths: [])
        order.append(member.key)
      }
      groups[member.key]?.paths.append(member.path)
    }
    return order.compactMap { groups[$0] }.filter { $0.paths.count > 1 }
      .sorted { ($0.paths.count, $1.label) > ($1.paths.count, $0.label) }
  }

  /// "recoloured #16A34A → #9333EA: 312 references".
  public var line: String { "\(label): \(paths.count) references" }

  /// The lines a summary leads with: nothing unless `changeCount` reaches `leadingFrom` and
  /// some group exists; then the largest `listLimit` groups and how many more.
  /// - Parameters:
  ///   - groups: The groups, largest first.
  ///   - changeCount: How many references changed.
  /// - Returns: The groups' lines, without a heading.
  public static func leadingLines(_ groups: [ChangeGroup], changeCount: Int) -> [String] {
    guard changeCount >= leadingFrom, !groups.isEmpty else { return [] }
    var lines = groups.prefix(listLimit).map(\.line)
    if groups.count > listLimit { lines.append("and \(groups.count - listLimit) more groups") }
    return lines
  }
}

extension MergeSummary.Change {
  /// The distinct kinds of its regions, in the order found ("moved by (2, 1), added"); nil
  /// without a review report or a region.
  public var kindsText: String? {
    var labels: [String] = []
    for label in (kinds ?? []).map(\.label) where !labels.contains(label) { labels.append(label) }
    return labels.isEmpty ? nil : labels.joined(separator: ", ")
  }
}

/// What kind of change one changed region of an updated reference is, as the review report
/// found it (`ChangeKind` of ReferenceImageCore): `--json` lists them under each change.
public struct RegionKind: Decodable, Sendable, Equatable {
  /// The kind's name: moved, recoloured, added, removed, antiAliasingOrNoise, resized, changed.
  public var kind: String
  /// The kind with its parameters: "moved by (2, 1)".
  public var label: String
  /// The region's box, [x, y, width, height].
  public var box: [Int]
  /// The pixels of the box that changed.
  public var changedPixels: Int

  /// Creates a region's kind.
  public init(kind: String, label: String, box: [Int], changedPixels: Int) {
    self.kind = kind
    self.label = label
    self.box = box
    self.changedPixels = changedPixels
  }
}
