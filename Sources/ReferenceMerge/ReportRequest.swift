import Foundation
import ReferenceArchive

/// What a merge hands the review report through `MergeSession.report`: where to write it, the
/// command that lands the reviewed decisions, the run's problems and warnings so far, and
/// whether the merge goes on to write what the report shows.
public struct ReportRequest: Sendable {
  /// Whether the changes a report shows are written into the package. The report is written
  /// before the merge applies anything (so "before" shows the references as they were); the
  /// merge decides the state by the rule that decides whether it applies: `landed` exactly when
  /// it is neither a dry run nor stopped by problems or conflicts, so it goes on to write.
  public enum Changes: String, Sendable, Equatable {
    /// Nothing is written: a dry run (`--dry-run`, `--check`), or a report written by a caller
    /// that applies nothing. The page's decisions land with the land command.
    case pending
    /// Nothing is written: the merge stopped before writing because of problems or conflicts.
    case stopped
    /// The merge writes the changes right after the report (a write that then fails exits 1;
    /// restoring a path that was never written changes nothing). The page's rejections put the
    /// earlier references back.
    case landed
  }

  /// The name of the decision file a landed report's page exports: the rejected changes, each
  /// bound to the landed and the earlier pixels, that `--include-from` restores.
  public static let restoreFileName = "reference-restore.txt"
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
