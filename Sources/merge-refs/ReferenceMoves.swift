import ArgumentParser
import Foundation
import ReferenceMerge

/// `merge-refs --print-moves`: the commands on standard output, so `| sh` runs them; what they
/// leave and what to change in `Package.swift` on standard error, where a person reads it.
enum ReferenceMoves {
  static func print(packageRoot: String) throws {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: packageRoot, isDirectory: &isFolder),
      isFolder.boolValue,
      FileManager.default.fileExists(atPath: packageRoot + "/Package.swift")
    else {
      throw ValidationError("\(packageRoot) is not a package root (a folder with a Package.swift)")
    }
    let found = ReferenceRootMoves(packageRoot: URL(fileURLWithPath: packageRoot))
    for line in found.commands { Swift.print(line) }
    for line in notes(found) { FileHandle.standardError.write(Data((line + "\n").utf8)) }
  }

  /// The lines for a person: counts first, then what stays and the manifest's edit.
  static func notes(_ found: ReferenceRootMoves) -> [String] {
    var lines: [String] = []
    if found.moves.isEmpty {
      lines.append("nothing to move: every reference is in its target's __References__ root")
    } else {
      lines.append(
        "\(found.moves.count) \(found.moves.count == 1 ? "move" : "moves") into the targets' "
          + "__References__ roots; `git mv` moves committed or staged files only")
    }
    for path in found.bothHeld {
      lines.append("both held, not moved (verify reads the target's root): \(path)")
    }
    for path in found.leftInPlace {
      lines.append("left in place, no test file beside it names it: \(path)")
    }
    if !found.emptied.isEmpty {
      lines.append(
        "then in Package.swift keep exclude: [\"__References__\"] and remove these entries, "
          + "relative to their target: "
          + found.emptied.map { "\"\(relativeToTarget($0))\"" }.joined(separator: ", "))
    }
    return lines
  }

  /// `Area/__References__` of `Tests/ChartTests/Area/__References__`.
  private static func relativeToTarget(_ path: String) -> String {
    path.split(separator: "/").dropFirst(2).joined(separator: "/")
  }
}
