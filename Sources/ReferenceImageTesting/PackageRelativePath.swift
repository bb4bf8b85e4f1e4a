import Foundation

extension URL {
  /// This file's path relative to the package root (`Tests/ChartTests/ChartTests.swift`), as a
  /// person types it in the package root; the whole path when it is outside the package. The
  /// one rule for the paths the failure messages, annotations and land commands print.
  func pathRelative(toPackageRoot root: URL) -> String {
    let path = standardizedFileURL.path
    let rootPath = root.standardizedFileURL.path
    let prefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
    return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
  }
}
