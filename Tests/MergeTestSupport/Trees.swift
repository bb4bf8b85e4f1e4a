import Foundation
import XCTest

/// Writes a file, creating its folders.
public func writeFile(_ bytes: [UInt8], to url: URL) throws {
  try FileManager.default.createDirectory(
    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try Data(bytes).write(to: url)
}

/// What a path in a folder tree is.
public enum TreeNode: Equatable {
  case file([UInt8])
  case folder
  case link(String)
}

/// Every file, folder and link below `root` (links not followed), with file bytes.
public func snapshot(_ root: URL) throws -> [String: TreeNode] {
  var tree: [String: TreeNode] = [:]
  func walk(_ url: URL, _ relative: String) throws {
    for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
      let child = url.appendingPathComponent(name)
      let path = relative.isEmpty ? name : "\(relative)/\(name)"
      let type = try FileManager.default.attributesOfItem(atPath: child.path)[.type]
      switch type as? FileAttributeType {
      case .typeSymbolicLink:
        tree[path] = .link(try FileManager.default.destinationOfSymbolicLink(atPath: child.path))
      case .typeDirectory:
        tree[path] = .folder
        try walk(child, path)
      default:
        tree[path] = .file(Array(try Data(contentsOf: child)))
      }
    }
  }
  try walk(root, "")
  return tree
}

/// Asserts two trees are equal, naming the paths that differ (not dumping bytes).
public func assertTreesEqual(
  _ actual: [String: TreeNode], _ expected: [String: TreeNode], _ message: String = "",
  file: StaticString = #filePath, line: UInt = #line
) {
  let paths = Set(actual.keys).union(expected.keys).sorted()
  let differing = paths.filter { actual[$0] != expected[$0] }.map { path in
    switch (actual[path], expected[path]) {
    case (nil, _): return "\(path) (missing)"
    case (_, nil): return "\(path) (unexpected)"
    default: return "\(path) (different)"
    }
  }
  XCTAssertTrue(
    differing.isEmpty, "trees differ at \(differing.prefix(20)) \(message)", file: file,
    line: line)
}
