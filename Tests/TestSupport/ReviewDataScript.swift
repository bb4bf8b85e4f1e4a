import Foundation
import XCTest

/// The review report's data as the tests read it: `review-data.js` is one statement,
/// `window.REFERENCE_REVIEW = {...};` followed by a newline (written by ReferenceReview's
/// `ReviewData`), and a single-file page holds the same statement in a `<script>` of its own.
/// Every test reads the report's data through this one reader.
public enum ReviewDataScript {
  /// What precedes the JSON.
  public static let prefix = "window.REFERENCE_REVIEW = "
  /// What follows it.
  public static let suffix = ";\n"

  /// The JSON of a `review-data.js` text, after checking the statement around it.
  public static func json(of script: String) throws -> Data {
    guard script.hasPrefix(prefix), script.hasSuffix(suffix) else {
      throw ReadFailure(problem: "not one REFERENCE_REVIEW statement: \(script.prefix(80))…")
    }
    return Data(script.dropFirst(prefix.count).dropLast(suffix.count).utf8)
  }

  /// The data of a `review-data.js` text as a JSON object.
  public static func object(of script: String) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: json(of: script)) as? [String: Any]
    else { throw ReadFailure(problem: "the review data is not a JSON object") }
    return object
  }

  /// The data of the report folder's `review-data.js` as a JSON object.
  public static func object(inReport folder: URL) throws -> [String: Any] {
    try object(of: text(inReport: folder))
  }

  /// The report folder's `review-data.js`, as text.
  public static func text(inReport folder: URL) throws -> String {
    try String(contentsOf: folder.appendingPathComponent("review-data.js"), encoding: .utf8)
  }

  /// The cards of the report folder's data, in the order the report wrote them.
  public static func cards(inReport folder: URL) throws -> [[String: Any]] {
    guard let cards = try object(inReport: folder)["cards"] as? [[String: Any]] else {
      throw ReadFailure(problem: "the review data in \(folder.path) has no cards")
    }
    return cards
  }

  /// A single-file page cut into its data statement (as `review-data.js` would hold it) and
  /// the page around it.
  public static func splitSingleFile(_ page: String) throws -> (page: String, script: String) {
    guard let start = page.range(of: "<script>\n" + prefix),
      let end = page.range(of: ";\n</script>", range: start.upperBound..<page.endIndex)
    else { throw ReadFailure(problem: "the single-file page holds no REFERENCE_REVIEW script") }
    return (
      String(page[..<start.lowerBound]) + String(page[end.upperBound...]),
      prefix + page[start.upperBound..<end.lowerBound] + suffix
    )
  }

  /// Why the report's data could not be read.
  public struct ReadFailure: Error, CustomStringConvertible {
    /// What was wrong.
    public var problem: String
    public var description: String { problem }
  }
}
