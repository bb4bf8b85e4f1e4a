import Foundation

/// The plugin's arguments, parsed and validated.
struct RegenerationRequest {
  /// A bad argument, with the message that names it.
  struct UsageError: Error {
    let message: String
    /// Where the caller wants the exit status, when that much was parsed.
    let statusFile: URL?
  }

  static let usage = """
    USAGE: swift package --allow-writing-to-package-directory regenerate-references
             [--mode \(modes)] [--filter REGEX] [--repeat N] [--sources FOLDER]
             [--prune] [--dry-run] [--fast-references] [--report DIR|FILE.html]
             [--status-file FILE]

    Runs the package's tests with IMAGE_GENERATION_MODE and parallel workers, merges every
    archive they wrote into the package with merge-refs, prints the summary and writes a review
    page: a folder (default .build/reference-review; open its index.html), or one file when the
    name ends in .html. --filter passes REGEX to `swift test --filter` (a Swift Testing test's
    name ends with /File.swift:line:column, which `(/|$)` after it matches); a filter that
    selects no test is an error.
    --repeat N runs the tests N times (up to 10): renders of one test that differ between the
    runs are unstable, and merge-refs lands none of them \
    (exit \(ExitStatus.unstableRenders.rawValue)).
    --sources merges archives collected elsewhere (a folder of CI artifacts) instead of running
    the tests. Relative paths start at the package root.
    --prune deletes orphans: references in the folders the tests used that no test produced or
    verified, looked for only without --filter (every test runs, and the merge proves it), and
    never among what a skipped test may own. Orphans found without --prune are listed with the
    command that deletes exactly them.
    The references land in the smallest lossless form (merge-refs --compact: about half the
    bytes, about 0.2 s of one core per changed 800x600 render); --fast-references lands the
    renders as they were encoded instead.

    The plugin exits with merge-refs' status; `swift package` reports any failure as 1, so the
    status is printed, and --status-file FILE receives it for scripts. The statuses:
    \(ExitStatus.list(pluginStatuses)).
    Ctrl-C stops every process the plugin started (the build, the tests) and lands nothing:
    merge-refs is not started. The plugin prints the command that runs it again, and its
    status is 130 (128 + the signal's number for SIGTERM or SIGHUP).
    """

  /// The statuses the plugin can end with: merge-refs' own, less `--check`'s, which it never
  /// passes.
  static let pluginStatuses = ExitStatus.allCases.filter { $0 != .checkFoundChanges }

  /// The generation mode the tests run in: one of `RunMode.recording`.
  var mode = RunMode.all
  var filter: String?
  /// How many times the tests run; renders that differ between the runs are unstable.
  var repeatCount = 1
  var sources: URL?
  var dryRun = false
  /// Delete the orphans found (`merge-refs --prune`).
  var prune = false
  /// Land references in the smallest lossless form (`merge-refs --compact`); off with
  /// `--fast-references`.
  var compact = true
  var report: URL?
  var statusFile: URL?
  var showHelp = false
  /// The arguments as given, for the command this regeneration prints.
  let arguments: [String]

  /// Parses the arguments; paths are resolved against the package root.
  init(arguments: [String], package: URL) throws {
    func resolved(_ path: String) -> URL {
      URL(fileURLWithPath: path, relativeTo: package).standardizedFileURL
    }
    self.arguments = arguments
    // Found first, so that even a usage error reaches the script waiting for the status.
    if let index = arguments.firstIndex(of: "--status-file"), index + 1 < arguments.count {
      statusFile = resolved(arguments[index + 1])
    }
    let statusFile = self.statusFile
    var remaining = arguments[...]
    func value(_ option: String, _ what: String) throws -> String {
      guard let next = remaining.popFirst(), !next.hasPrefix("--") else {
        throw UsageError(message: "\(option) needs \(what)", statusFile: statusFile)
      }
      return next
    }
    while let argument = remaining.popFirst() {
      switch argument {
      case "--mode": mode = RunMode(rawValue: try value("--mode", Self.modeChoices))
      case "--filter": filter = try value("--filter", "a regular expression")
      case "--repeat":
        let text = try value("--repeat", "a count from 1 to 10")
        guard let count = Int(text), (1...10).contains(count) else {
          throw UsageError(
            message: "--repeat needs a count from 1 to 10, not '\(text)'", statusFile: statusFile)
        }
        repeatCount = count
      case "--sources": sources = resolved(try value("--sources", "a folder"))
      case "--report": report = resolved(try value("--report", "a folder or FILE.html"))
      case "--status-file": _ = try value("--status-file", "a file name")
      case "--dry-run": dryRun = true
      case "--prune": prune = true
      case "--fast-references": compact = false
      case "-h", "--help": showHelp = true
      default:
        throw UsageError(
          message: "unknown argument \(argument) (see --help)", statusFile: statusFile)
      }
    }
    guard RunMode.recording.contains(mode) else {
      throw UsageError(
        message: "--mode must be \(Self.modeChoices), not '\(mode)'", statusFile: statusFile)
    }
  }

  /// The modes `--mode` takes, for the usage: "all|missing|failed".
  static let modes = RunMode.recording.map(\.rawValue).joined(separator: "|")
  /// The modes `--mode` takes, for messages: "all, missing or failed".
  static let modeChoices =
    RunMode.recording.dropLast().map(\.rawValue).joined(separator: ", ") + " or "
    + (RunMode.recording.last?.rawValue ?? "")

  /// This regeneration again with `--prune`, as one shell line to paste into the package root:
  /// the arguments as given, less those that would stop the pruning (`--dry-run`) or only
  /// serve a script (`--status-file`).
  var pruneCommand: String { command(dropping: ["--dry-run", "--prune"], adding: ["--prune"]) }

  /// This regeneration again, as one shell line to paste into the package root: what an
  /// interrupted run prints. The arguments as given, less `--status-file`, which only serves a
  /// script.
  var rerunCommand: String { command(dropping: [], adding: []) }

  private func command(dropping dropped: Set<String>, adding added: [String]) -> String {
    var words = [
      "swift", "package", "--allow-writing-to-package-directory", "regenerate-references",
    ]
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      if dropped.contains(argument) { continue }
      if argument == "--status-file" {
        _ = remaining.popFirst()
        continue
      }
      words.append(argument)
    }
    return (words + added).map(Self.shellQuoted).joined(separator: " ")
  }

  /// A word as a POSIX shell reads it back. (A plugin cannot import the package's modules, so
  /// this repeats `ShellWord.quoted` of ReferenceArchive.)
  static func shellQuoted(_ word: String) -> String {
    let safe = word.allSatisfy {
      $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:@%+,".contains($0))
    }
    if safe && !word.isEmpty { return word }
    return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }
}
