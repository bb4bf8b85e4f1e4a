// This file imports nothing on purpose: the regenerate-references plugin, which cannot import
// the package's libraries, compiles it too, through a symbolic link in its folder.

/// The exit statuses of `merge-refs`: the one definition that its help, the merge, the
/// `regenerate-references` plugin and the tests read. `reference-shards` uses the same numbers
/// for what it shares with them: success, refused input and invalid arguments.
public enum ExitStatus: Int32, CaseIterable, Sendable {
  /// Success; with `--check`, the references are up to date.
  case success = 0
  /// A write failed (a reference, or the report page).
  case writeFailed = 1
  /// Sources conflict; nothing was written.
  case conflicts = 2
  /// Refused, corrupt or incomplete input, or runs that prove less than asked; nothing written.
  case refusedInput = 3
  /// `--check`: the merge would change the references.
  case checkFoundChanges = 4
  /// Replicated runs of a test rendered different pixels; those paths were not written.
  case unstableRenders = 5
  /// Invalid arguments (`ValidationError`, and the plugin's own usage errors).
  case invalidArguments = 64

  /// A few words for lists, such as the plugin's help: "write failed".
  public var name: String {
    switch self {
    case .success: "success"
    case .writeFailed: "write failed"
    case .conflicts: "conflicts"
    case .refusedInput: "refused input"
    case .checkFoundChanges: "check found changes"
    case .unstableRenders: "unstable renders"
    case .invalidArguments: "invalid arguments"
    }
  }

  /// What the status means, as `merge-refs --help` prints it, in lines of at most 70 columns.
  public var meaning: [String] {
    switch self {
    case .success: ["success; with --check, the references are up to date"]
    case .writeFailed:
      [
        "a write failed (a reference, or the --report page): the error names",
        "the file, the cause and the fix; files written are complete, the",
        "others as they were, and the summary counts only what was written",
      ]
    case .conflicts: ["sources conflict; nothing was written"]
    case .refusedInput:
      [
        "refused, corrupt or (with --require-complete) incomplete input, or",
        "(with --require-shards) shards that do not prove the plan ran",
        "exactly once, or an image recorded unchanged (or a failed",
        "comparison's render) whose reference changed since the run, or an",
        "approval whose pixels are not the ones reviewed, or an invalid",
        "ReferenceVariants.json, or renders of a platform it does not",
        "declare; nothing was written (with --keep-going, the rest was)",
      ]
    case .checkFoundChanges: ["--check: the merge would change the references"]
    case .unstableRenders:
      [
        "replicated runs of a test rendered different pixels (unstable); those",
        "paths were not written, the others were",
      ]
    case .invalidArguments: ["invalid arguments"]
    }
  }

  /// The "Exit codes:" block of `merge-refs --help`: each status, then its meaning.
  public static var helpBlock: String {
    let lines = allCases.flatMap { status in
      let number = String(status.rawValue)
      let column = number + String(repeating: " ", count: 4 - number.count)
      return status.meaning.enumerated().map { index, line in
        "  " + (index == 0 ? column : "    ") + line
      }
    }
    return (["Exit codes:"] + lines).joined(separator: "\n")
  }

  /// "0 success, 1 write failed, …" for the given statuses.
  /// - Parameter statuses: The statuses to list, in order.
  public static func list(_ statuses: [ExitStatus]) -> String {
    statuses.map { "\($0.rawValue) \($0.name)" }.joined(separator: ", ")
  }
}
