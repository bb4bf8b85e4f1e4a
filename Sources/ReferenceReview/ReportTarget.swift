import Foundation
import ReferenceArchive
import ReferenceMerge

/// Where a review report goes, and how it lands there whole: a path ending in `.html` is one
/// self-contained file, any other path a folder. Either is written under a temporary name
/// beside it and renamed into place, so a reader sees the old report or the new one.
struct ReportTarget {
  /// The report's path.
  let url: URL

  /// Whether the report is one file rather than a folder.
  var isSingleFile: Bool { url.pathExtension.lowercased() == "html" }

  /// A new private folder beside the report, with an empty `images/` inside: the report
  /// folder itself in the folder form, a scratch folder for the images in the single-file form.
  /// - Throws: `ReviewError.io` naming the folder.
  func makeWorkFolder() throws(ReviewError) -> URL {
    let parent = url.deletingLastPathComponent()
    try ReviewError.catching { () throws(ArchiveError) in try FileSystem.createFolder(parent) }
    try refuseToReplaceOtherThanAReport()
    let work = parent.appendingPathComponent(FileSystem.temporaryName(for: url.lastPathComponent))
    try ReviewError.catching { () throws(ArchiveError) in
      try FileSystem.createFolder(work.appendingPathComponent("images"))
    }
    return work
  }

  /// The name of the zip of a landed report folder's earlier references.
  static let earlierReferencesName = "before.zip"

  /// Where a landed report keeps the references its merge replaced: `before.zip` inside a
  /// report folder; beside a one-file report `NAME.html`, `NAME-before.zip`.
  var earlierReferences: URL {
    guard isSingleFile else { return url.appendingPathComponent(Self.earlierReferencesName) }
    return url.deletingLastPathComponent().appendingPathComponent(
      url.deletingPathExtension().lastPathComponent + "-before.zip")
  }

  /// A temporary file beside the report, for the single-file form.
  var temporaryFile: URL {
    url.deletingLastPathComponent().appendingPathComponent(
      FileSystem.temporaryName(for: url.lastPathComponent))
  }

  /// Renames a finished report folder into place, replacing an older report folder.
  /// - Throws: `ReviewError.io` naming the report.
  func landFolder(_ work: URL) throws(ReviewError) {
    var status = stat()
    guard lstat(url.path, &status) == 0 else {
      try ReviewError.catching { () throws(ArchiveError) in try FileSystem.rename(work, to: url) }
      return
    }
    // rename(2) cannot replace a folder that has files: the old report steps aside first, and
    // is deleted once the new one is in place.
    let old = url.deletingLastPathComponent().appendingPathComponent(
      FileSystem.temporaryName(for: url.lastPathComponent + "-old"))
    try ReviewError.catching { () throws(ArchiveError) in try FileSystem.rename(url, to: old) }
    do throws(ArchiveError) {
      try FileSystem.rename(work, to: url)
    } catch {
      try? FileSystem.rename(old, to: url)
      throw .archive(error)
    }
    try? FileManager.default.removeItem(at: old)
  }

  /// Deletes what a failed report left.
  func discard(_ paths: URL...) {
    for path in paths { try? FileManager.default.removeItem(at: path) }
  }

  /// A folder report replaces only an older report or an empty folder, never a folder of
  /// other files that happens to have the name given.
  private func refuseToReplaceOtherThanAReport() throws(ReviewError) {
    var status = stat()
    guard lstat(url.path, &status) == 0 else { return }
    let isFolder = (status.st_mode & S_IFMT) == S_IFDIR
    if isSingleFile {
      guard !isFolder else {
        throw .io(
          operation: "write the review report", path: url.path,
          message: "a folder is in the way; remove it or choose another name")
      }
      return
    }
    guard isFolder else {
      throw .io(
        operation: "write the review report folder", path: url.path,
        message: "a file is in the way; remove it, or give a FILE.html for a one-file report")
    }
    let contents = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? ["?"]
    guard contents.isEmpty || contents.contains(ReviewPage.data) else {
      throw .io(
        operation: "replace the review report folder", path: url.path,
        message: "it holds other files and no \(ReviewPage.data), so it is not an older report; "
          + "choose another folder or remove it")
    }
  }
}
