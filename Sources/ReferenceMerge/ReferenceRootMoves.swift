import Foundation
import ReferenceContracts

/// The moves that bring references kept beside nested test files
/// (`Tests/ChartTests/Bars/__References__/StackTests/`) into their target's reference root
/// (`Tests/ChartTests/__References__/Bars/StackTests/`, ``ReferenceLayout``), as `git mv`
/// commands a person reads, then runs.
///
/// Only a folder whose test file is beside it (`Bars/StackTests.swift` for
/// `Bars/__References__/StackTests/`) moves: a folder named by `referenceFolder:` or left by a
/// removed test stays where its test looks for it, and is listed. Where the target's root
/// already holds the folder, its files move one by one; a file both places hold is left in
/// place and listed, since verify reads the root's.
public struct ReferenceRootMoves: Sendable, Equatable {
  /// One `git mv`, package-relative.
  public struct Move: Sendable, Equatable {
    public var from: String
    public var to: String

    public init(from: String, to: String) {
      self.from = from
      self.to = to
    }
  }

  /// The moves, in path order.
  public private(set) var moves: [Move] = []
  /// Files both the folder beside a test file and the target's root hold: not moved.
  public private(set) var bothHeld: [String] = []
  /// Folders beside test files that no test file beside them names: not moved.
  public private(set) var leftInPlace: [String] = []
  /// The folders beside test files that the moves empty, whose `exclude` entries then go.
  public private(set) var emptied: [String] = []

  /// The moves a package needs.
  /// - Parameter packageRoot: The folder holding `Package.swift`.
  public init(packageRoot: URL) {
    let tests = ReferenceLayout.testsFolder
    for target in Self.entries(packageRoot, tests)
    where target != ReferenceLayout.folderName && Self.isFolder(packageRoot, "\(tests)/\(target)") {
      findBesideRoots(packageRoot, folder: "\(tests)/\(target)", depth: 0)
    }
  }

  /// The shell commands: `mkdir -p` for each new parent, then the `git mv`s.
  public var commands: [String] {
    var made = Set<String>()
    var lines: [String] = []
    for move in moves {
      let parent = Self.parent(of: move.to)
      if made.insert(parent).inserted { lines.append(ShellWord.line(["mkdir", "-p", parent])) }
      lines.append(ShellWord.line(["git", "mv", move.from, move.to]))
    }
    return lines
  }

  private mutating func findBesideRoots(_ root: URL, folder: String, depth: Int) {
    for name in Self.entries(root, folder) where !name.hasPrefix(".") {
      let path = "\(folder)/\(name)"
      guard Self.isFolder(root, path) else { continue }
      if name == ReferenceLayout.folderName {
        if depth > 0 { plan(root, besideRoot: path) }
      } else {
        findBesideRoots(root, folder: path, depth: depth + 1)
      }
    }
  }

  /// The moves of one `__References__` folder beside nested test files.
  private mutating func plan(_ root: URL, besideRoot: String) {
    let testFolder = Self.parent(of: besideRoot)
    var movesAll = true
    for stem in Self.entries(root, besideRoot) where !stem.hasPrefix(".") {
      let testFile = "\(testFolder)/\(stem).swift"
      guard Self.isFolder(root, "\(besideRoot)/\(stem)"),
        FileManager.default.fileExists(atPath: root.appendingPathComponent(testFile).path)
      else {
        leftInPlace.append("\(besideRoot)/\(stem)")
        movesAll = false
        continue
      }
      movesAll =
        merge(
          root, from: "\(besideRoot)/\(stem)",
          to: ReferenceLayout.folder(ofTestFile: testFile)) && movesAll
    }
    if movesAll { emptied.append(besideRoot) }
  }

  /// Moves `from` to `to`, entry by entry where `to` exists; whether everything moved.
  private mutating func merge(_ root: URL, from: String, to: String) -> Bool {
    let target = root.appendingPathComponent(to).path
    guard FileManager.default.fileExists(atPath: target) else {
      moves.append(Move(from: from, to: to))
      return true
    }
    guard Self.isFolder(root, from), Self.isFolder(root, to) else {
      bothHeld.append(from)
      return false
    }
    var movesAll = true
    for name in Self.entries(root, from) {
      movesAll = merge(root, from: "\(from)/\(name)", to: "\(to)/\(name)") && movesAll
    }
    return movesAll
  }

  private static func entries(_ root: URL, _ folder: String) -> [String] {
    let url = root.appendingPathComponent(folder)
    return ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
  }

  /// Whether `path` is a folder itself, not a link to one: a link is never walked (it may
  /// lead out of the package or back into itself) nor moved.
  private static func isFolder(_ root: URL, _ path: String) -> Bool {
    let attributes = try? FileManager.default.attributesOfItem(
      atPath: root.appendingPathComponent(path).path)
    return attributes?[.type] as? FileAttributeType == .typeDirectory
  }

  private static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return String(path[..<slash])
  }
}
