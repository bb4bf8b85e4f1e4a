import Foundation
import ReferenceArchive

/// The review page's files, shipped as resources of this module (`ReviewPage/`): real HTML,
/// CSS and JavaScript that Swift copies or inlines, filling in only the data.
///
/// index.html names the page's scripts, one `<script src="NAME"></script>` line each, in the
/// order they run (they share one global scope); a folder report copies each beside it, and the
/// single-file report inlines each in place of its line.
enum ReviewPage {
  static let index = "index.html"
  static let style = "review.css"
  static let data = "review-data.js"

  /// The lines of index.html that load the other files; the single-file form replaces each by
  /// the file's contents.
  static let styleTag = #"<link rel="stylesheet" href="review.css">"#
  static let dataTag = #"<script src="review-data.js"></script>"#

  /// The folder holding the page's files.
  static var folder: URL {
    Bundle.module.resourceURL!.appendingPathComponent("ReviewPage")
  }

  /// The bytes of one of the page's files.
  /// - Throws: `ArchiveError.io` when the resources are missing (a `merge-refs` copied away
  ///   from its build folder).
  static func file(_ name: String) throws(ArchiveError) -> [UInt8] {
    do {
      return try FileSystem.read(folder.appendingPathComponent(name))
    } catch {
      throw .io(
        operation: "read the review page's \(name)", path: folder.path,
        message: "\(error); run merge-refs from its build folder, beside its resources")
    }
  }

  /// The script a line of index.html loads (`<script src="NAME"></script>`, the data's
  /// excepted), or nil.
  static func script(loadedBy line: Substring) -> String? {
    let text = line.trimmingCharacters(in: .whitespaces)
    let prefix = #"<script src=""#
    let suffix = #""></script>"#
    guard text != dataTag, text.hasPrefix(prefix), text.hasSuffix(suffix),
      text.count > prefix.count + suffix.count
    else { return nil }
    let name = String(text.dropFirst(prefix.count).dropLast(suffix.count))
    return name.contains("/") || name.contains("\"") ? nil : name
  }

  /// The page's scripts, in the order index.html loads them.
  static func scripts() throws(ArchiveError) -> [String] {
    String(decoding: try file(index), as: UTF8.self)
      .split(separator: "\n", omittingEmptySubsequences: false)
      .compactMap { script(loadedBy: $0) }
  }

  /// The files a folder report holds beside its data: index.html, the style and every script.
  static func files() throws(ArchiveError) -> [String] {
    [index, style] + (try scripts())
  }

  /// index.html cut around the data tag, with the style and every script inlined: the text
  /// before the data and the text after it.
  static func singleFileParts() throws(ArchiveError) -> (head: String, tail: String) {
    let index = String(decoding: try file(Self.index), as: UTF8.self)
    let style = String(decoding: try file(Self.style), as: UTF8.self)
    var head = ""
    var tail = ""
    var seenData = false
    for line in index.split(separator: "\n", omittingEmptySubsequences: false) {
      var text = String(line)
      if let script = script(loadedBy: line) {
        text = "<script>\n\(String(decoding: try file(script), as: UTF8.self))</script>"
      } else {
        switch line.trimmingCharacters(in: .whitespaces) {
        case styleTag: text = "<style>\n\(style)</style>"
        case dataTag:
          head += "<script>\n"
          tail = "</script>"
          seenData = true
          continue
        default: break
        }
      }
      if seenData { tail += "\n" + text } else { head += text + "\n" }
    }
    guard seenData else {
      throw .io(
        operation: "inline the review data", path: folder.appendingPathComponent(Self.index).path,
        message: "the page has no line \(dataTag)")
    }
    return (head, tail)
  }
}
