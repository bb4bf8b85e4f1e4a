import Foundation
import ReferenceArchive

/// The review page's files, shipped as resources of this module (`ReviewPage/`): real HTML,
/// CSS and JavaScript that Swift copies or inlines, filling in only the data.
enum ReviewPage {
  static let index = "index.html"
  static let style = "review.css"
  static let script = "review.js"
  static let data = "review-data.js"

  /// The lines of index.html that load the other files; the single-file form replaces each by
  /// the file's contents.
  static let styleTag = #"<link rel="stylesheet" href="review.css">"#
  static let dataTag = #"<script src="review-data.js"></script>"#
  static let scriptTag = #"<script src="review.js"></script>"#

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

  /// index.html cut around the data tag, with the style and script inlined: the text before
  /// the data and the text after it.
  static func singleFileParts() throws(ArchiveError) -> (head: String, tail: String) {
    let index = String(decoding: try file(Self.index), as: UTF8.self)
    let style = String(decoding: try file(Self.style), as: UTF8.self)
    let script = String(decoding: try file(Self.script), as: UTF8.self)
    var head = ""
    var tail = ""
    var seenData = false
    for line in index.split(separator: "\n", omittingEmptySubsequences: false) {
      var text = String(line)
      switch line.trimmingCharacters(in: .whitespaces) {
      case styleTag: text = "<style>\n\(style)</style>"
      case scriptTag: text = "<script>\n\(script)</script>"
      case dataTag:
        head += "<script>\n"
        tail = "</script>"
        seenData = true
        continue
      default: break
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
