import Foundation

/// The paths a merge may land: `merge-refs --include PATTERN` and `--include-from FILE`.
///
/// Each pattern is a glob on the package-relative path: `*` matches within one folder name,
/// `?` one character other than `/`, `**` any run of folders (`a/**/b.png` matches `a/b.png`
/// and `a/x/y/b.png`), `\` before a character matches that character itself (the review page's
/// download writes `\*`, `\?` and `\\`, so a path holding them matches only itself), anything
/// else itself. Applied to a finished plan as one last step, it turns every change outside the
/// patterns into a skipped item: not written, and never pruned.
public struct IncludeFilter: Sendable, Equatable {
  /// The patterns, as given; a filter with none includes nothing.
  public var patterns: [String]

  /// Creates a filter.
  /// - Parameter patterns: Globs on package-relative paths; a leading `./` is ignored.
  public init(patterns: [String]) {
    self.patterns = patterns
  }

  /// Reads the patterns of an include file: one path or glob per line; blank lines and lines
  /// starting with `#` are ignored, and surrounding spaces are dropped.
  /// - Parameter url: The file, such as the review page's exported decision.
  /// - Returns: The patterns, in file order.
  /// - Throws: `IncludeFilter.FileError` naming the file when it cannot be read as text.
  public static func patterns(inFileAt url: URL) throws(FileError) -> [String] {
    let text: String
    do {
      text = try String(contentsOf: url, encoding: .utf8)
    } catch {
      throw FileError(path: url.path, reason: (error as NSError).localizedDescription)
    }
    return text.split(whereSeparator: \.isNewline)
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty && !$0.hasPrefix("#") }
  }

  /// An include file that cannot be read.
  public struct FileError: Error, CustomStringConvertible, Sendable {
    /// The file.
    public var path: String
    /// What went wrong.
    public var reason: String

    public var description: String {
      "cannot read the include file \(path): \(reason); give a text file with one path or "
        + "glob per line (the review page's \"Download accepted paths\" writes one)"
    }
  }

  /// Whether a package-relative path matches any pattern.
  public func includes(_ path: String) -> Bool {
    let target = Array(path.utf8)
    return patterns.contains { pattern in
      var glob = Substring(pattern)
      if glob.hasPrefix("./") { glob = glob.dropFirst(2) }
      return Self.match(Array(glob.utf8)[...], target[...])
    }
  }

  /// Moves every change outside the patterns (added, updated, conflict, orphan) from the plan's
  /// items to its skipped items. Unchanged paths stay: nothing happens to them either way.
  public func apply(to plan: inout MergePlan) {
    var kept: [MergePlan.Item] = []
    for item in plan.items {
      if item.outcome == .unchanged || includes(item.path) {
        kept.append(item)
      } else {
        plan.skipped.append(item)
      }
    }
    plan.items = kept
  }

  private static let star = UInt8(ascii: "*")
  private static let question = UInt8(ascii: "?")
  private static let slash = UInt8(ascii: "/")
  private static let backslash = UInt8(ascii: "\\")

  /// Backtracking glob match; paths are short, so the worst case does not matter.
  private static func match(_ pattern: ArraySlice<UInt8>, _ path: ArraySlice<UInt8>) -> Bool {
    guard let first = pattern.first else { return path.isEmpty }
    let rest = pattern.dropFirst()
    if first == star, rest.first == star {
      let afterStars = rest.dropFirst()
      if afterStars.first == slash {
        // `**/`: zero folders, or any run of whole folders.
        let tail = afterStars.dropFirst()
        if match(tail, path) { return true }
        return path.indices.contains { path[$0] == slash && match(tail, path[($0 + 1)...]) }
      }
      return (path.startIndex...path.endIndex).contains { match(afterStars, path[$0...]) }
    }
    if first == star {
      var index = path.startIndex
      while true {
        if match(rest, path[index...]) { return true }
        guard index < path.endIndex, path[index] != slash else { return false }
        index += 1
      }
    }
    guard let character = path.first else { return false }
    if first == backslash, let literal = rest.first {
      return character == literal && match(rest.dropFirst(), path.dropFirst())
    }
    if first == question { return character != slash && match(rest, path.dropFirst()) }
    return character == first && match(rest, path.dropFirst())
  }
}
