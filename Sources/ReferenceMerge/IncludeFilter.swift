import Foundation
import ReferenceImageCore

/// The paths a merge may land: `merge-refs --include PATTERN` and `--include-from FILE`.
///
/// Each pattern is a glob on the package-relative path: `*` matches within one folder name,
/// `?` one character other than `/`, `**` any run of folders (`a/**/b.png` matches `a/b.png`
/// and `a/x/y/b.png`), `\` before a character matches that character itself (the review page's
/// download writes `\*`, `\?` and `\\`, so a path holding them matches only itself), anything
/// else itself. Applied to a finished plan as one last step, it turns every change outside the
/// patterns into a skipped item: not written, and never pruned.
///
/// A line of an include file may also bind an accepted path to the pixels reviewed, as the
/// review page's export writes it: `PATH<TAB>BEFORE<TAB>AFTER`, each digest the SHA-256 of the
/// RGBA8 pixels in hex, BEFORE `-` for an added image. Such a path lands only while its source
/// holds exactly the AFTER pixels and the destination still holds the BEFORE pixels (or still
/// nothing): `staleApprovals` lists the others, and the merge refuses them.
public struct IncludeFilter: Sendable, Equatable {
  /// The patterns, as given; a filter with none includes nothing.
  public var patterns: [String]
  /// The accepted paths bound to the pixels reviewed, by path.
  public var approvals: [String: Approval]

  /// An accepted change bound to the pixels a reviewer saw.
  public struct Approval: Sendable, Equatable {
    /// The package-relative path (not a glob).
    public var path: String
    /// The reference's pixels when reviewed; nil for an added image (there was none).
    public var before: SHA256Digest?
    /// The new image's pixels, as reviewed.
    public var after: SHA256Digest

    /// Creates an approval.
    public init(path: String, before: SHA256Digest?, after: SHA256Digest) {
      self.path = path
      self.before = before
      self.after = after
    }
  }

  /// Creates a filter.
  /// - Parameters:
  ///   - patterns: Globs on package-relative paths; a leading `./` is ignored.
  ///   - approvals: Accepted paths bound to the pixels reviewed (each path also a pattern).
  public init(patterns: [String], approvals: [Approval] = []) {
    self.patterns = patterns
    self.approvals = Dictionary(approvals.map { ($0.path, $0) }) { _, last in last }
  }

  /// An include file's contents: its patterns, and its lines bound to reviewed pixels.
  public struct File: Sendable, Equatable {
    /// Every line's pattern, bound or not, in file order.
    public var patterns: [String]
    /// The bound lines.
    public var approvals: [Approval]
  }

  /// Reads an include file: one path or glob per line, or a bound line (see the type's
  /// comment); blank lines and lines starting with `#` are ignored, and surrounding spaces are
  /// dropped.
  /// - Parameter url: The file, such as the review page's exported decision.
  /// - Returns: The patterns and approvals, in file order.
  /// - Throws: `IncludeFilter.FileError` naming the file (and line) when it cannot be read as
  ///   text or a bound line is malformed.
  public static func read(fileAt url: URL) throws(FileError) -> File {
    let text: String
    do {
      text = try String(contentsOf: url, encoding: .utf8)
    } catch {
      throw FileError(path: url.path, reason: (error as NSError).localizedDescription)
    }
    return try parse(text, path: url.path)
  }

  /// The decision-file grammar, whose cases the review page's export is tested against too
  /// (`decision-file-cases.json`). Lines end at ASCII line breaks only (LF, CR LF, CR): a
  /// path may hold U+2028 and the like. Surrounding white space is dropped, except a last
  /// character escaped with `\` (the page escapes a path's leading `#` and white space at
  /// either end, so every path it writes reads back as itself).
  /// - Parameters:
  ///   - text: The file's text.
  ///   - path: The file, for messages.
  /// - Returns: The patterns and approvals, in file order.
  /// - Throws: `IncludeFilter.FileError` naming the file and line of a malformed bound line.
  public static func parse(_ text: String, path: String) throws(FileError) -> File {
    var file = File(patterns: [], approvals: [])
    let lines = text.split(omittingEmptySubsequences: false) { $0.isNewline && $0.isASCII }
    for (index, rawLine) in lines.enumerated() {
      let line = trimmed(rawLine)
      guard !line.isEmpty, !line.hasPrefix("#") else { continue }
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard fields.count > 1 else {
        file.patterns.append(line)
        continue
      }
      guard fields.count == 3, let after = SHA256Digest(hex: fields[2]),
        fields[1] == "-" || SHA256Digest(hex: fields[1]) != nil
      else {
        throw FileError(
          path: path,
          reason: "line \(index + 1) is not PATH<TAB>BEFORE<TAB>AFTER with pixel digests in hex "
            + "(BEFORE - for an added image): \(line)")
      }
      file.patterns.append(fields[0])
      file.approvals.append(
        Approval(
          path: literalPath(fields[0]), before: SHA256Digest(hex: fields[1]), after: after))
    }
    return file
  }

  /// The white space a line drops at its ends, spelled out rather than Foundation's
  /// `whitespacesAndNewlines`, which differs between platforms (Linux's holds U+200B); the
  /// review page escapes exactly these at a path's ends.
  static let lineSpace = CharacterSet(
    charactersIn: "\t\n\u{0B}\u{0C}\r \u{85}\u{A0}\u{1680}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}"
  )
  .union(CharacterSet(charactersIn: "\u{2000}"..."\u{200B}"))

  /// A line without its surrounding white space, except a last white-space character that a
  /// backslash escapes (an odd run of them before it).
  private static func trimmed(_ line: Substring) -> String {
    let text = line.trimmingCharacters(in: lineSpace)
    let backslashes = text.reversed().prefix { $0 == "\\" }.count
    // Only white space follows the text's last character, its last backslash.
    guard backslashes % 2 == 1, let slash = line.lastIndex(of: "\\"),
      line.index(after: slash) < line.endIndex
    else { return text }
    return text + String(line[line.index(after: slash)])
  }

  /// The patterns of an include file, bound lines included (see `read(fileAt:)`).
  public static func patterns(inFileAt url: URL) throws(FileError) -> [String] {
    try read(fileAt: url).patterns
  }

  /// The path a glob-escaped line names: `\x` is `x`.
  static func literalPath(_ escaped: String) -> String {
    var path = ""
    var escaping = false
    for character in escaped {
      if !escaping && character == "\\" {
        escaping = true
        continue
      }
      escaping = false
      path.append(character)
    }
    return path.hasPrefix("./") ? String(path.dropFirst(2)) : path
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

  /// One approval the plan does not honour, and why.
  public struct StaleApproval: Sendable, Equatable {
    /// The package-relative path.
    public var path: String
    /// What differs from the review, with both digests.
    public var reason: String
  }

  /// The approvals whose pixels are not what the plan would land over what the destination
  /// holds: the source's image is not the reviewed after-image, the destination's reference
  /// is not the reviewed before-image (or a file appeared where there was none), or no source
  /// holds the path any more. A path whose destination already holds the reviewed after-image
  /// is honoured: that merge already happened.
  /// - Parameter plan: The plan as `--include` narrowed it; each item's `before` is the
  ///   destination's pixel digest its decision was made on.
  func staleApprovals(in plan: MergePlan) -> [StaleApproval] {
    guard !approvals.isEmpty else { return [] }
    var found: Set<String> = []
    var stale: [StaleApproval] = []
    for item in plan.items {
      guard let approval = approvals[item.path] else { continue }
      found.insert(item.path)
      if let reason = Self.staleReason(approval, item) {
        stale.append(.init(path: item.path, reason: reason))
      }
    }
    // Paths the plan already refuses by other rules are reported by them.
    found.formUnion(plan.changedSinceComparison.map(\.path))
    found.formUnion(plan.unarchivedChanged)
    for path in approvals.keys.sorted() where !found.contains(path) {
      stale.append(.init(path: path, reason: "no source holds it any more"))
    }
    return stale
  }

  private static func staleReason(
    _ approval: Approval, _ item: MergePlan.Item
  ) -> String? {
    let name = { (digest: SHA256Digest?) in digest.map { "sha256 \($0.hex)" } ?? "no image" }
    switch item.outcome {
    case .conflict, .unstable:
      return nil  // never written; reported by their own rules
    case .orphan:
      return "no source holds it any more"
    case .redundant:
      return "the render now matches its fallback, so the variant file is redundant"
    case .added, .updated, .unchanged:
      guard let chosen = item.chosen?.image.pixelSHA256 else { return nil }
      if chosen != approval.after {
        return "reviewed the new image \(name(approval.after)), the sources now hold "
          + name(chosen)
      }
      guard item.outcome != .unchanged else { return nil }
      let now = item.before
      if now != approval.before {
        return "reviewed over the reference \(name(approval.before)), the destination now holds "
          + name(now)
      }
      return nil
    }
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
