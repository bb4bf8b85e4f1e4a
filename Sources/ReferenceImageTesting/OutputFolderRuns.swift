import Foundation
import ReferenceContracts

/// The names of what one test process leaves in an output folder (its archive, its run record,
/// its staging folder), and the pruning that keeps the default folder bounded.
///
/// A name is `ReferenceImages-<process start, UTC>-<host>-<pid>-<process id>-run-<run token>`:
/// it sorts by start, is unique per process, and says which run the process belongs to, so old
/// runs are found without opening a file.
enum OutputFolderRuns {
  static let prefix = "ReferenceImages-"
  static let runMarker = "-run-"

  /// The file name stem of one test process.
  static func fileStem(startedAt: Date, processID: Int32, processRunID: String, run: String)
    -> String
  {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
    let host = ProcessInfo.processInfo.hostName.map { $0.isLetter || $0.isNumber ? $0 : "_" }
    return "\(prefix)\(formatter.string(from: startedAt))-\(String(host))-\(processID)-"
      + "\(processRunID.prefix(8))\(runMarker)\(runToken(run))"
  }

  /// Eight hex digits of the run's SHA-256: enough to tell the runs of one folder apart.
  static func runToken(_ run: String) -> String {
    String(SHA256.hex(Array(run.utf8)).prefix(8))
  }

  /// One process's leftover, parsed from its name.
  struct Entry: Equatable {
    /// The name in the folder (a file or a staging folder).
    var name: String
    /// The process start, as the name spells it (sortable).
    var start: Substring
    /// The run token.
    var run: Substring
  }

  /// Parses a name of `fileStem`'s form, with or without `.zip` or the run record's ending.
  static func entry(_ name: String) -> Entry? {
    guard name.hasPrefix(prefix), let marker = name.range(of: runMarker, options: .backwards)
    else { return nil }
    var stem = Substring(name)
    for ending in [".zip", GenerationContract.runRecordSuffix] where stem.hasSuffix(ending) {
      stem = stem.dropLast(ending.count)
    }
    let run = stem[marker.upperBound...]
    let start = name.dropFirst(prefix.count).prefix { $0 != "-" }
    guard run.count == 8, run.allSatisfy(\.isHexDigit), !start.isEmpty else { return nil }
    return Entry(name: name, start: start, run: run)
  }

  /// The names to remove so that only the `keeping` newest runs stay: runs are ordered by their
  /// earliest process start, and the run of `spared` always stays.
  static func namesToRemove(_ names: [String], keeping: Int, spared: String) -> [String] {
    let entries = names.compactMap(entry)
    var firstStart: [Substring: Substring] = [:]
    for entry in entries {
      firstStart[entry.run] = min(firstStart[entry.run] ?? entry.start, entry.start)
    }
    let newestFirst = firstStart.sorted {
      $0.value != $1.value ? $0.value > $1.value : $0.key > $1.key
    }
    var kept = Set(newestFirst.prefix(keeping).map(\.key))
    if let own = entry(spared) { kept.insert(own.run) }
    return entries.filter { !kept.contains($0.run) }.map(\.name).sorted()
  }

  /// Removes the archives, run records and staging folders of all but the newest runs. A
  /// process of another invocation running at the same time belongs to one of the newest runs,
  /// so its files stay; names of another form are never touched.
  static func removeOldRuns(in folder: URL, keeping: Int, sparing spared: String) {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    for name in namesToRemove(files, keeping: keeping, spared: spared) {
      try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
    }
    let staging = folder.appendingPathComponent(GenerationContract.stagingFolderName)
    let runs = (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []
    guard !runs.isEmpty else { return }
    // Staging folders count with the files: a crashed run's folder is one of its leftovers.
    let removable = Set(namesToRemove(files + runs, keeping: keeping, spared: spared))
    for name in runs where removable.contains(name) {
      try? FileManager.default.removeItem(at: staging.appendingPathComponent(name))
    }
  }
}
