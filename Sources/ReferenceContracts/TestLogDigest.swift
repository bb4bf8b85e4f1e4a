// This file imports nothing on purpose: the regenerate-references plugin, which cannot import
// the package's libraries, compiles it too, through a symbolic link in its folder.

/// What a person reads of a `swift test` log that a tool ran for them: how many tests failed
/// and which, the lines ReferenceImages and the test runners wrote about the run, each once and
/// cut at a width, and where the whole log is. A failing test's own output (an assertion's
/// message can be kilobytes of data) stays in the log.
public struct TestLogDigest: Sendable, Equatable {
  /// A distinct line about the run, with how many times the log holds it.
  public struct Highlight: Sendable, Equatable {
    public var line: String
    public var count: Int
  }

  /// The widest line the digest prints; a longer one ends in `…`.
  public static let width = 160
  /// How many failed tests and how many distinct lines are named before a count stands for
  /// the rest.
  public static let limit = 10

  /// The tests that failed, each once, in the order the log reports them.
  public private(set) var failedTests: [String] = []
  /// The distinct lines about the run, in the order they first appear, with how many times.
  public private(set) var highlights: [Highlight] = []
  /// How many processes said they wrote an archive of no image (`ReferenceImages: wrote 0
  /// images …`): with parallel workers, most of a package's test processes, each line naming
  /// its own archive; counted on one line instead.
  public private(set) var emptyArchives = 0

  /// Reads a log.
  /// - Parameter log: The log's text.
  public init(log: String) {
    var seenTests = Set<String>()
    var counts: [Substring: Int] = [:]
    var order: [Substring] = []
    for raw in log.split(separator: "\n") {
      let line = raw.trimmingWhitespace()
      if let test = Self.failedTest(in: line) {
        if seenTests.insert(test).inserted { failedTests.append(test) }
      } else if line.hasPrefix("ReferenceImages: wrote 0 images ") {
        emptyArchives += 1
      } else if line.hasPrefix("ReferenceImages: ") || line.firstRange(of: "Test run with ") != nil
      {
        if counts[line] == nil { order.append(line) }
        counts[line, default: 0] += 1
      }
    }
    highlights = order.map { Highlight(line: String($0), count: counts[$0] ?? 0) }
  }

  /// The digest's lines: the run's lines, then the failed tests, then the log's path.
  /// - Parameters:
  ///   - logPath: Where the whole log is.
  ///   - succeeded: Whether `swift test` exited with status 0: a failure that names no failed
  ///     test (a crash, a build that failed) is said as such.
  public func lines(logPath: String, succeeded: Bool = true) -> [String] {
    var lines = highlights.prefix(Self.limit).map {
      "  " + Self.cut($0.line) + ($0.count > 1 ? " (\($0.count) times)" : "")
    }
    if emptyArchives > 0 {
      let (processes, record) =
        emptyArchives == 1
        ? ("1 test process", "its archive records")
        : ("\(emptyArchives) test processes", "their archives record")
      lines.insert("  \(processes) stored no image (\(record) which tests ran)", at: 0)
    }
    if highlights.count > Self.limit {
      lines.append("  and \(highlights.count - Self.limit) more lines like these in the log")
    }
    if failedTests.isEmpty {
      lines.append(
        succeeded
          ? "no test failed; full log: \(logPath)"
          : "the tests failed, and the log names no failed test (a crash?); full log: \(logPath)")
    } else {
      lines.append(failedTestsLine + "; their output is in the full log: \(logPath)")
    }
    return lines
  }

  /// How many tests failed and the first of their names, as many as fit in `width`
  /// characters (at most `limit`), the others counted.
  public var failedTestsLine: String {
    let head = "\(failedTests.count) \(failedTests.count == 1 ? "test" : "tests") failed: "
    var line = head
    var shown = 0
    for name in failedTests.prefix(Self.limit) {
      let left = failedTests.count - shown - 1
      let tail = left > 0 ? ", and \(left) more" : ""
      let next = (shown == 0 ? "" : ", ") + Self.cut(name, to: Self.width / 2)
      guard shown == 0 || line.count + next.count + tail.count <= Self.width else { break }
      line += next
      shown += 1
    }
    let left = failedTests.count - shown
    return line + (left > 0 ? ", and \(left) more" : "")
  }

  /// The test a runner's line reports failed: XCTest's `Test Case 'Class.test' failed (…)`,
  /// Swift Testing's `✘ Test name() failed after …`.
  static func failedTest(in line: Substring) -> String? {
    if line.hasPrefix("Test Case '"), let end = line.firstRange(of: "' failed (") {
      return String(line[line.index(line.startIndex, offsetBy: 11)..<end.lowerBound])
    }
    if line.hasPrefix("✘ Test "), let end = line.firstRange(of: " failed after ") {
      return String(line[line.index(line.startIndex, offsetBy: 7)..<end.lowerBound])
    }
    return nil
  }

  /// A line cut to `width` characters, ending in `…` when it was longer.
  public static func cut(_ line: some StringProtocol, to width: Int = width) -> String {
    line.count <= width ? String(line) : String(line.prefix(width - 1)) + "…"
  }
}

extension Substring {
  fileprivate func trimmingWhitespace() -> Substring {
    var line = self
    while let first = line.first, first == " " || first == "\t" || first == "\r" {
      line = line.dropFirst()
    }
    while let last = line.last, last == " " || last == "\t" || last == "\r" {
      line = line.dropLast()
    }
    return line
  }
}
