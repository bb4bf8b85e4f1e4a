/// GitHub Actions workflow commands (`::error::…`, `::warning::…`) for a merge's problems,
/// at most `limit` of them: GitHub shows about 10 of each per step, so the last line says how
/// many more are in the job summary.
public enum Annotations {
  /// The most annotations a merge prints.
  public static let defaultLimit = 10

  /// A message that belongs at a line of a file: a failed image assertion.
  public struct Located: Sendable, Equatable {
    /// The file, relative to the repository root.
    public var file: String
    /// The line.
    public var line: Int
    /// The annotation's title.
    public var title: String
    /// The message.
    public var message: String

    /// Creates a located message.
    public init(file: String, line: Int, title: String, message: String) {
      self.file = file
      self.line = line
      self.title = title
      self.message = message
    }
  }

  /// The annotation lines: errors at their assertions first, then other errors, then warnings.
  public static func lines(
    located: [Located] = [], errors: [String], warnings: [String], limit: Int = defaultLimit
  ) -> [String] {
    let atLines = located.map {
      "::error file=\(escapeProperty($0.file)),line=\($0.line),title=\(escapeProperty($0.title))::"
        + escape($0.message)
    }
    let all =
      atLines + errors.map { "::error::" + escape($0) }
      + warnings.map { "::warning::" + escape($0) }
    guard all.count > limit else { return all }
    let more = all.count - (limit - 1)
    return Array(all.prefix(limit - 1)) + [
      "::warning::\(more) more problems and warnings are listed in the job summary and the log"
    ]
  }

  /// A property value escaped as workflow commands require: also `:` and `,`.
  public static func escapeProperty(_ value: String) -> String {
    escape(value).replacingOccurrences(of: ":", with: "%3A")
      .replacingOccurrences(of: ",", with: "%2C")
  }

  /// A message escaped as workflow commands require: `%`, carriage return and newline.
  public static func escape(_ message: String) -> String {
    message.replacingOccurrences(of: "%", with: "%25")
      .replacingOccurrences(of: "\r", with: "%0D")
      .replacingOccurrences(of: "\n", with: "%0A")
  }
}
