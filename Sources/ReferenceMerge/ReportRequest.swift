import Foundation
import ReferenceArchive

/// What a merge hands the review report through `MergeSession.report`: where to write it, the
/// command that lands the reviewed decisions, the run's problems and warnings so far, and
/// whether the merge goes on to write what the report shows.
public struct ReportRequest: Sendable {
  /// Whether the changes a report shows are written into the package. The report's cards are
  /// written before the merge applies anything (so "before" shows the references as they
  /// were), and the report ends with what applying did (`UnfinishedReport.finish`): a request
  /// says `landed` when the merge goes on to write, and the ending says whether it did.
  public enum Changes: String, Sendable, Equatable {
    /// Nothing is written: a dry run (`--dry-run`, `--check`), or a report written by a caller
    /// that applies nothing. The page's decisions land with the land command.
    case pending
    /// Nothing is written: the merge stopped before writing because of problems or conflicts.
    case stopped
    /// The merge wrote the changes (in a request: it goes on to write them). Paths a failed
    /// write did not reach are listed in the ending's `notWritten`. The page's rejections put
    /// the earlier references back.
    case landed
    /// Nothing is written: the merge set out to write, and a write failed before any file was
    /// (a read-only reference folder); the problems name the folder and the fix. The page's
    /// decisions land with the land command, as on a pending report.
    case failed
  }

  /// How a report ends: what the merge did once the cards were written.
  public struct Ending: Sendable, Equatable {
    /// Whether the changes are written.
    public var changes: Changes
    /// On a report landed in part, the added, updated and pruned paths that applying did not
    /// reach because a write failed first: those files are as they were.
    public var notWritten: [String]
    /// The run's problems, a failed write's included, shown at the top of the page.
    public var problems: [String]

    /// Creates an ending.
    public init(changes: Changes, notWritten: [String] = [], problems: [String]) {
      self.changes = changes
      self.notWritten = notWritten
      self.problems = problems
    }
  }

  /// The name of the decision file a landed report's page exports: the rejected changes, each
  /// bound to the landed and the earlier pixels, that `--include-from` restores.
  public static let restoreFileName = "reference-restore.txt"
  /// The entry that marks a landed report's earlier references (`before.zip`) as what they
  /// are: not a run, so neither complete nor cut short, and a restore from them is not warned
  /// about as an incomplete source. Its text says what the zip is for.
  public static let earlierReferencesMarker = "ReferenceImages-earlier-references.txt"
  /// The marker entry's text.
  public static let earlierReferencesNote =
    "The references a merge replaced, kept by its review report: merge-refs --include-from "
    + "\(restoreFileName) restores the rejected ones from this zip.\n"
  /// The name of the decision file the page exports and `--include-from` reads.
  public static let decisionFileName = "reference-decisions.txt"
  /// The file that holds a report folder's data: a folder holding it is a report, never a
  /// source of images.
  public static let dataFileName = "review-data.js"

  /// The `--report` path: a folder, or one file for a path ending in `.html`.
  public var url: URL
  /// The limits for reading the sources again.
  public var limits: ArchiveLimits
  /// The command that lands the merge; the page shows it with `--include-from` and the
  /// exported decision file.
  public var landCommand: LandCommand
  /// Problems of the run so far, shown at the top of the page.
  public var problems: [String]
  /// Warnings of the run so far.
  public var warnings: [String]
  /// The package tree being merged into, through which the current references are read.
  package var destination: Destination
  /// Whether the merge writes what the report shows.
  public var changes: Changes

  package init(
    url: URL, limits: ArchiveLimits, landCommand: LandCommand, problems: [String],
    warnings: [String], destination: Destination, changes: Changes = .pending
  ) {
    self.changes = changes
    self.url = url
    self.limits = limits
    self.landCommand = landCommand
    self.problems = problems
    self.warnings = warnings
    self.destination = destination
  }
}

/// A command line in two parts, so the page's `--include-from FILE` goes right after the
/// program, whatever words the program takes (`swift run merge-refs`).
public struct LandCommand: Sendable, Equatable {
  /// The program's words.
  public var program: [String]
  /// The options, sources and destination.
  public var arguments: [String]

  /// Creates a command.
  public init(program: [String], arguments: [String]) {
    self.program = program
    self.arguments = arguments
  }
}

/// A review report whose cards are written, waiting for what the merge then did: `finish`
/// writes that ending and puts the report in place, so the page's status is what applying did,
/// per file, never what the plan meant to do. Until then no report is in place.
public struct UnfinishedReport {
  /// The page to open once finished.
  public var page: URL
  /// The references its cards found changed the same way, largest group first.
  public var changeGroups: [ChangeGroup] = []
  /// Each compared card's regions with their kinds, by path.
  public var regionKinds: [String: [RegionKind]] = [:]
  private let end: (ReportRequest.Ending) throws -> Void

  /// Creates a report that `end` finishes.
  public init(page: URL, end: @escaping (ReportRequest.Ending) throws -> Void) {
    self.page = page
    self.end = end
  }

  /// Writes the ending and puts the report in place.
  /// - Returns: The page to open.
  /// - Throws: The report writer's error (`ReviewError`) when the report cannot be finished
  ///   (it is then removed).
  public func finish(_ ending: ReportRequest.Ending) throws -> URL {
    try end(ending)
    return page
  }
}
