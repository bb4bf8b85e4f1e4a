import Foundation
import ReferenceArchive

/// What a merge hands the review report through `MergeSession.report`: where to write it, the
/// command that lands the reviewed decisions, and the run's problems and warnings so far.
public struct ReportRequest: Sendable {
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

  package init(
    url: URL, limits: ArchiveLimits, landCommand: LandCommand, problems: [String],
    warnings: [String], destination: Destination
  ) {
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
