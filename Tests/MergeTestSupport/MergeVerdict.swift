import Foundation
import ReferenceContracts
import ReferenceMerge

/// What a scenario's merge decided, read from `MergePlan` and the session's conclusion: the
/// values every printed line is rendered from, named with the scenario's short names.
public struct MergeVerdict {
  /// The session's conclusion, whole.
  public let conclusion: MergeSession.Conclusion
  private let name: (String) -> String

  init(conclusion: MergeSession.Conclusion, scenario: MergeScenario) {
    self.conclusion = conclusion
    name = scenario.name(of:)
  }

  /// The plan. A session makes one even when the destination cannot be opened.
  public var plan: MergePlan {
    guard let plan = conclusion.plan else { preconditionFailure("the session made no plan") }
    return plan
  }

  /// The exit status `merge-refs` ends with; nil for a code `ExitStatus` does not define.
  public var status: ExitStatus? { conclusion.status }

  /// Every path's outcome, by short name.
  public var outcomes: [String: MergePlan.Outcome] {
    Dictionary(uniqueKeysWithValues: plan.items.map { (name($0.path), $0.outcome) })
  }

  /// The short names of the paths with one outcome, sorted.
  public func names(_ outcome: MergePlan.Outcome) -> [String] {
    plan.items(outcome).map { name($0.path) }.sorted()
  }

  /// The plan's decision for a short name.
  public func item(_ short: String) -> MergePlan.Item? {
    plan.items.first { name($0.path) == short }
  }

  /// The file names of the sources a path's image comes from: the chosen one, or for a conflict
  /// or an unstable render every rival, newest first.
  public func sources(of short: String) -> [String] {
    inventories(of: short).map { fileName($0.source) }
  }

  /// The workers (`host pid N (SHARD=…)`) whose images `sources(of:)` names, in its order.
  public func workers(of short: String) -> [String] {
    inventories(of: short).map(\.workerSummary)
  }

  private func inventories(of short: String) -> [SourceInventory] {
    guard let item = item(short) else { return [] }
    let candidates =
      item.outcome == .conflict || item.outcome == .unstable
      ? item.rivals : item.chosen.map { [$0] } ?? []
    return candidates.map { plan.inventories[$0.sourceIndex] }
  }

  /// The sources read, by file name, with the reason each is incomplete (nil when complete).
  public var completeness: [String: String?] {
    Dictionary(
      plan.inventories.map { (fileName($0.source), $0.incompleteReason) },
      uniquingKeysWith: { first, _ in first })
  }

  /// A source's last path component: `b.zip`, `staging` for a folder, `inner.zip` for an
  /// archive inside another.
  private func fileName(_ source: MergeSource) -> String {
    String(source.description.split(separator: "/").last ?? "")
  }

  /// The problems met, by kind (`MergeProblem.caseName`), in the order met.
  public var problems: [String] { conclusion.problems.map(\.caseName) }

  /// The short names of the paths a problem names (shared, changed since review or since a
  /// comparison, recorded unchanged, Git LFS pointers), in the order met.
  public var refusedPaths: [String] { conclusion.problems.compactMap(\.path).map(name) }

  /// An archive entry a source was refused for (`MergeError.refusedEntry`).
  public struct RefusedEntry: Equatable, CustomStringConvertible {
    /// The source's file name.
    public var source: String
    /// The entry, by short name.
    public var entry: String
    /// Why it was refused.
    public var reason: String

    public init(source: String, entry: String, reason: String) {
      self.source = source
      self.entry = entry
      self.reason = reason
    }

    public var description: String { "\(source): '\(entry)': \(reason)" }
  }

  /// The entries sources were refused for, in the order met.
  public var refusedEntries: [RefusedEntry] {
    conclusion.problems.compactMap { problem in
      guard case .refusedSource(.refusedEntry(let source, let entry, let reason)) = problem
      else { return nil }
      return RefusedEntry(
        source: String(source.split(separator: "/").last ?? ""), entry: name(entry),
        reason: reason)
    }
  }

  /// The changes `--include` left out, by short name, sorted.
  public var skipped: [String] { plan.skipped.map { name($0.path) }.sorted() }

  /// The renders a later run superseded, by short name, sorted.
  public var superseded: [String] { plan.superseded.map { name($0.path) }.sorted() }

  /// The summary the command line prints and writes as `--json`.
  public var summary: MergeSummary { conclusion.summary }
}

extension MergeSession.Conclusion {
  /// The exit status `merge-refs` ends with; nil for a code `ExitStatus` does not define.
  public var status: ExitStatus? { ExitStatus(rawValue: exitCode) }
}

extension MergeProblem {
  /// The case's name, such as `refusedSource`: a test says which problem it expects without
  /// matching the sentence, and a new case cannot be added without naming it here.
  public var caseName: String {
    switch self {
    case .unlistableSource: "unlistableSource"
    case .refusedSource: "refusedSource"
    case .unsafeDestination: "unsafeDestination"
    case .gitLFSPointer: "gitLFSPointer"
    case .unarchivedImageChanged: "unarchivedImageChanged"
    case .changedSinceComparison: "changedSinceComparison"
    case .changedSinceReview: "changedSinceReview"
    case .incompleteSources: "incompleteSources"
    case .reportNotWritten: "reportNotWritten"
    case .writeFailed: "writeFailed"
    case .unprovenShards: "unprovenShards"
    case .sharedReference: "sharedReference"
    case .invalidVariants: "invalidVariants"
    case .undeclaredPlatform: "undeclaredPlatform"
    }
  }

  /// The reference path the problem is about, for the problems about one path.
  public var path: String? {
    switch self {
    case .gitLFSPointer(let path), .unarchivedImageChanged(let path),
      .changedSinceComparison(let path, _, _), .changedSinceReview(let path, _),
      .sharedReference(let path, _):
      path
    default: nil
    }
  }
}
