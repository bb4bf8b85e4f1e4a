// This file imports nothing on purpose: the regenerate-references plugin, which cannot import
// the package's libraries, compiles it too, through a symbolic link in its folder.

/// What a person reads of a `swift build` log that a tool ran for them: SwiftPM's own warnings
/// about the package (an `exclude` not found, unhandled files), which ask for a fix; the
/// compiler's warnings counted, the package's own apart from its dependencies', not printed;
/// the errors of a failed build; and where the whole log is.
public struct BuildLogDigest: Sendable, Equatable {
  /// SwiftPM's warnings (`warning: 'package': …`), each once, in order.
  public private(set) var packageWarnings: [String] = []
  /// How many distinct compiler warnings are in the package's own files.
  public private(set) var ownWarnings = 0
  /// How many distinct compiler warnings are in other files (dependencies, `.build`).
  public private(set) var otherWarnings = 0
  /// The error lines, each once, in order.
  public private(set) var errors: [String] = []
  /// The reference roots an `exclude` names that SwiftPM did not find, relative to the package
  /// (`Tests/ChartTests/__References__`): each gets the one-time setup command.
  public private(set) var missingReferenceRoots: [String] = []

  /// Reads a log.
  /// - Parameters:
  ///   - log: The log's text.
  ///   - packageRoot: The package's absolute path: a warning in a file below it (outside its
  ///     `.build`) is the package's own.
  public init(log: String, packageRoot: String) {
    let root = packageRoot.hasSuffix("/") ? packageRoot : packageRoot + "/"
    var seen = Set<Substring>()
    for line in log.split(separator: "\n") where seen.insert(line).inserted {
      if line.hasPrefix("warning: '") {
        packageWarnings.append(String(line))
        if let missing = Self.missingReferenceRoot(line, root: root) {
          missingReferenceRoots.append(missing)
        }
      } else if line.hasPrefix("/"), line.firstRange(of: ": warning: ") != nil {
        let own = line.hasPrefix(root) && line.firstRange(of: "/.build/") == nil
        if own { ownWarnings += 1 } else { otherWarnings += 1 }
      } else if line.hasPrefix("error: ") || line.firstRange(of: ": error: ") != nil {
        errors.append(String(line))
      }
    }
  }

  /// The digest's lines.
  /// - Parameters:
  ///   - logPath: Where the whole log is.
  ///   - succeeded: Whether the build succeeded; a failed one lists its errors.
  public func lines(logPath: String, succeeded: Bool) -> [String] {
    var lines = packageWarnings.map { TestLogDigest.cut($0) }
    // The command is whole, never cut: it is meant to be pasted.
    lines += missingReferenceRoots.map { folder in
      "make \(folder) once and commit it, and no build warns again: mkdir -p \(folder) && "
        + "touch \(folder)/.gitkeep && git add \(folder)/.gitkeep"
    }
    if !succeeded {
      lines += errors.prefix(TestLogDigest.limit).map { TestLogDigest.cut($0) }
      if errors.count > TestLogDigest.limit {
        lines.append("and \(errors.count - TestLogDigest.limit) more errors in the log")
      }
    }
    var counts: [String] = []
    if ownWarnings > 0 { counts.append(Self.count(ownWarnings, "in your package's code")) }
    if otherWarnings > 0 { counts.append(Self.count(otherWarnings, "in its dependencies")) }
    let verdict = succeeded ? "built" : "the build failed"
    let warnings = counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")"
    lines.append("\(verdict)\(warnings); full log: \(logPath)")
    return lines
  }

  /// The folder of SwiftPM's "Invalid Exclude '<root>/…/__References__': File not found."
  /// warning, relative to the package root; nil for any other warning, or a folder elsewhere.
  private static func missingReferenceRoot(_ line: Substring, root: String) -> String? {
    guard let start = line.firstRange(of: "Invalid Exclude '\(root)"),
      let end = line[start.upperBound...].firstRange(of: "': File not found")
    else { return nil }
    let folder = line[start.upperBound..<end.lowerBound]
    guard folder.hasSuffix("__References__"), !folder.contains("'"), !folder.contains(" ")
    else { return nil }
    return String(folder)
  }

  private static func count(_ count: Int, _ place: String) -> String {
    "\(count) compiler \(count == 1 ? "warning" : "warnings") \(place)"
  }
}
