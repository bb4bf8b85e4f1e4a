import Foundation
import ReferenceArchive
import ReferenceMerge

/// The review page's files: real HTML, CSS and JavaScript in `ReviewPage/`, which the
/// `EmbedReviewPage` build plugin turns into literals of this module (`ReviewPage.files`), so
/// the page travels inside the program and a copied `merge-refs` writes reports. Swift copies
/// or inlines them, filling in only the data.
enum ReviewPage {
  static let index = "index.html"
  static let data = ReportRequest.dataFileName

  /// The page's files by name, as the folder `ReviewPage/` held them when the program was
  /// built: every `.html`, `.css` and `.js` file there.
  static var files: [String: [UInt8]] { embeddedFiles }

  /// The names of the page's files, in the order a report folder receives them.
  static var names: [String] { files.keys.sorted() }

  /// The bytes of one of the page's files.
  /// - Throws: `ReviewError.io` when the program was built without that file.
  static func file(_ name: String) throws(ReviewError) -> [UInt8] {
    guard let bytes = files[name] else {
      throw .io(
        operation: "read the review page's \(name)", path: "ReviewPage/\(name)",
        message: "the program was built without it; rebuild merge-refs")
    }
    return bytes
  }

  /// index.html cut around the data tag, with every style sheet and script it loads inlined in
  /// its place (a line `<link rel="stylesheet" href="F">` or `<script src="F"></script>`):
  /// the text before the data and the text after it.
  static func singleFileParts() throws(ReviewError) -> (head: String, tail: String) {
    let index = String(decoding: try file(Self.index), as: UTF8.self)
    var head = ""
    var tail = ""
    var seenData = false
    for line in index.split(separator: "\n", omittingEmptySubsequences: false) {
      var text = String(line)
      switch loadedFile(line.trimmingCharacters(in: .whitespaces)) {
      case .style(let name):
        text = "<style>\n\(String(decoding: try file(name), as: UTF8.self))</style>"
      case .script(let name) where name == data:
        head += "<script>\n"
        tail = "</script>"
        seenData = true
        continue
      case .script(let name):
        text = "<script>\n\(String(decoding: try file(name), as: UTF8.self))</script>"
      case nil: break
      }
      if seenData { tail += "\n" + text } else { head += text + "\n" }
    }
    guard seenData else {
      throw .io(
        operation: "inline the review data", path: "ReviewPage/\(Self.index)",
        message: #"the page has no line <script src="\#(data)"></script>"#)
    }
    return (head, tail)
  }

  /// A line of index.html that loads one of the page's files.
  private enum LoadedFile {
    case style(String)
    case script(String)
  }

  /// The file a line loads, when the whole line is a style sheet link or a script tag.
  private static func loadedFile(_ line: String) -> LoadedFile? {
    let style = (#"<link rel="stylesheet" href=""#, #"">"#)
    let script = (#"<script src=""#, #""></script>"#)
    if let name = between(line, style) { return .style(name) }
    if let name = between(line, script) { return .script(name) }
    return nil
  }

  private static func between(_ line: String, _ ends: (String, String)) -> String? {
    guard line.hasPrefix(ends.0), line.hasSuffix(ends.1),
      line.count > ends.0.count + ends.1.count
    else { return nil }
    let name = line.dropFirst(ends.0.count).dropLast(ends.1.count)
    return name.contains("\"") ? nil : String(name)
  }

  /// Bytes the build plugin wrote in Base64: a page file that is not UTF-8 text.
  static func decoded(base64: String) -> [UInt8] {
    [UInt8](Data(base64Encoded: base64) ?? Data())
  }
}
