/// GitHub Actions workflow commands (`::error::…`, `::warning::…`) for a merge's problems,
/// at most `limit` of them: GitHub shows about 10 of each per step, so the last line says how
/// many more are in the job summary.
public enum Annotations {
  /// The most annotations a merge prints.
  public static let defaultLimit = 10

  /// The annotation lines: errors first, then warnings.
  public static func lines(errors: [String], warnings: [String], limit: Int = defaultLimit)
    -> [String]
  {
    let all = errors.map { "::error::" + escape($0) } + warnings.map { "::warning::" + escape($0) }
    guard all.count > limit else { return all }
    let more = all.count - (limit - 1)
    return Array(all.prefix(limit - 1)) + [
      "::warning::\(more) more problems and warnings are listed in the job summary and the log"
    ]
  }

  /// A message escaped as workflow commands require: `%`, carriage return and newline.
  public static func escape(_ message: String) -> String {
    message.replacingOccurrences(of: "%", with: "%25")
      .replacingOccurrences(of: "\r", with: "%0D")
      .replacingOccurrences(of: "\n", with: "%0A")
  }
}
