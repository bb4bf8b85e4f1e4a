import Foundation

/// Where a PNG attachment that swift-snapshot-testing recorded lands: that library keeps
/// references at `__Snapshots__/<TestFile>/<test>.<n>.png` beside the test file, and a result
/// bundle records neither the file nor the folder. The rule:
///
/// 1. The attachment's name must be named after its test: `<test>.<id>.<ext>`, or
///    `<TestFile>_<test>.<id>.<ext>` (screenshotbot's variant), where `<test>` is the test's
///    name without `()`.
/// 2. It lands on the file of that name in a `__Snapshots__/<folder>/` of the destination
///    (`<TestFile>` when the name carries it), when exactly one exists; when several do, on
///    the one whose folder is the test's class name.
/// 3. Anything else is not placed, and is listed with why: new snapshots need one local
///    recording to say where they belong.
public struct SnapshotPlacement: Sendable {
  /// Package-relative paths of the files below `__Snapshots__` folders, by file name.
  private let filesByName: [String: [String]]

  /// Indexes the destination's `__Snapshots__` folders (build, version control and hidden
  /// folders are skipped; links are not followed).
  public init(destination: URL) {
    var files: [String: [String]] = [:]
    let manager = FileManager.default
    guard let walk = manager.enumerator(atPath: destination.path) else {
      filesByName = [:]
      return
    }
    while let path = walk.nextObject() as? String {
      // Not `lastPathComponent`, which splits by `Character` on Linux.
      let parts = PathComponents.of(path)
      let name = parts.last ?? path
      let isFolder = FileStatus.of("\(destination.path)/\(path)") == .directory
      if isFolder && name.hasPrefix(".") {
        walk.skipDescendants()
        continue
      }
      guard !isFolder, parts.count >= 3, parts[parts.count - 3] == "__Snapshots__" else {
        continue
      }
      files[name, default: []].append(path)
    }
    filesByName = files
  }

  /// The destination path for an attachment, or why there is none.
  public func place(_ attachment: ImportedAttachment) -> Result<String, Unplaced> {
    let test = Self.testName(attachment.provenance.test)
    var folder: String?
    var file = attachment.name
    if !file.hasPrefix(test + "."), let underscore = file.firstIndex(of: "_"),
      file[file.index(after: underscore)...].hasPrefix(test + ".")
    {
      folder = String(file[..<underscore])
      file = String(file[file.index(after: underscore)...])
    }
    guard file.hasPrefix(test + ".") else {
      return .failure(
        Unplaced(
          "not named after its test \(test) (swift-snapshot-testing records <test>.<n>.png)"))
    }
    var candidates = (filesByName[file] ?? []).filter { path in
      folder.map { Self.folder(of: path) == $0 } ?? true
    }
    if candidates.count > 1 {
      let owner = Self.className(attachment.provenance.test)
      candidates = candidates.filter { Self.folder(of: $0) == owner }
    }
    switch candidates.count {
    case 1: return .success(candidates[0])
    case 0:
      let place = "__Snapshots__/\(folder ?? "<TestFile>")/\(file)"
      return .failure(
        Unplaced(
          "the destination has no \(place) (or several, none in the test's class folder): "
            + "record it once locally so its folder is known"))
    default:
      return .failure(Unplaced("several files could be it: \(candidates.joined(separator: ", "))"))
    }
  }

  /// Why an attachment was not placed.
  public struct Unplaced: Error, Sendable, Hashable {
    public var reason: String
    /// The kind it is counted as instead of being listed one by one (the reference and
    /// difference images of failed comparisons), or nil.
    public var countedAs: String?
    init(_ reason: String) { self.reason = reason }
    init(counted kind: String) {
      self.reason = kind
      self.countedAs = kind
    }
  }

  /// `Class/testName()` → `testName`; Swift Testing's `Suite/name(_:)` → `name`.
  static func testName(_ identifier: String) -> String {
    let last = PathComponents.of(identifier).last ?? identifier
    return last.firstIndex(of: "(").map { String(last[..<$0]) } ?? last
  }

  static func className(_ identifier: String) -> String {
    let parts = PathComponents.of(identifier)
    return parts.count >= 2 ? parts[parts.count - 2] : ""
  }

  private static func folder(of path: String) -> String {
    let parts = PathComponents.of(path)
    return parts.count >= 2 ? parts[parts.count - 2] : ""
  }
}
