import Foundation

/// The inputs of a replay: files as given, folders as their visible files, sorted.
enum FuzzCorpus {
  static func files(in path: String) -> [String] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder),
      isFolder.boolValue
    else { return [path] }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(path)/\($0)" }.filter {
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder)
        && !isFolder.boolValue
    }
  }
}
