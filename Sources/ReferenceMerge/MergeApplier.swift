import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Carries out a plan: writes added and updated images (each atomically, in its own folder),
/// deletes orphans when pruning, and never touches anything outside the destination.
public struct MergeApplier: Sendable {
  /// The options the plan was made with.
  public var options: MergeOptions

  /// Creates an applier.
  public init(options: MergeOptions) {
    self.options = options
  }

  /// What applying did.
  public struct Result: Sendable {
    /// Files written (added or updated).
    public var written: [String] = []
    /// Orphans deleted.
    public var deleted: [String] = []
    /// Temporary files of an earlier, interrupted merge that were removed.
    public var leftoversRemoved: [String] = []
  }

  /// Applies a plan that has no unresolved conflict.
  /// - Parameters:
  ///   - plan: The plan from `MergePlanner`.
  ///   - progress: Called with (files done, total) as files are written.
  /// - Returns: What was written and deleted.
  /// - Throws: `ArchiveError` when a write fails or a source changed since planning. Files
  ///   already written stay (each is complete); rerunning the merge finishes the job.
  public func apply(_ plan: MergePlan, progress: (Int, Int) -> Void = { _, _ in })
    throws(ArchiveError) -> Result
  {
    try apply(plan, staging: nil, progress: progress)
  }

  /// Applies a plan, renaming entries staged while planning into place and reading the
  /// sources again only for the rest.
  func apply(_ plan: MergePlan, staging: MergeStaging?, progress: (Int, Int) -> Void)
    throws(ArchiveError) -> Result
  {
    precondition(plan.items(.conflict).isEmpty, "a plan with conflicts must not be applied")
    var result = Result()
    let writes = plan.items.filter { $0.outcome == .added || $0.outcome == .updated }
    var touchedFolders = Set(writes.map { ($0.path as NSString).deletingLastPathComponent })
    if options.prune {
      touchedFolders.formUnion(
        plan.items(.orphan).map { ($0.path as NSString).deletingLastPathComponent })
    }
    for folder in touchedFolders.sorted() {
      let url = try safeURL(folder, in: plan.destination)
      result.leftoversRemoved += removeLeftovers(in: url, relativeFolder: folder)
    }
    try writeImages(writes, plan: plan, staging: staging, result: &result, progress: progress)
    if options.prune {
      for orphan in plan.items(.orphan) {
        let url = try safeURL(orphan.path, in: plan.destination)
        guard unlink(url.path) == 0 || errno == ENOENT else {
          throw .io(
            operation: "delete the orphan", path: url.path,
            message: String(cString: strerror(errno)))
        }
        result.deleted.append(orphan.path)
      }
    }
    return result
  }

  /// Reads each source once more and writes the entries the plan chose from it.
  private func writeImages(
    _ writes: [MergePlan.Item], plan: MergePlan, staging: MergeStaging?, result: inout Result,
    progress: (Int, Int) -> Void
  ) throws(ArchiveError) {
    var wanted: [Int: [String: MergePlan.Item]] = [:]
    var done = 0
    for item in writes {
      guard let chosen = item.chosen else { continue }
      // Staged while the sources were read, and checked then: one rename puts it in place.
      if let staged = staging?.stagedFile(sourceIndex: chosen.sourceIndex, path: item.path) {
        let target = try safeURL(item.path, in: plan.destination)
        try FileSystem.createFolder(target.deletingLastPathComponent())
        try FileSystem.rename(staged, to: target)
        result.written.append(item.path)
        done += 1
        progress(done, writes.count)
      } else {
        wanted[chosen.sourceIndex, default: [:]][item.path] = item
      }
    }
    let reader = SourceReader(limits: options.limits)
    for sourceIndex in wanted.keys.sorted() {
      let inventory = plan.inventories[sourceIndex]
      var pending = wanted[sourceIndex] ?? [:]
      try reader.forEachEntry(of: inventory.source, wantsData: { pending[$0] != nil }) {
        (entry) throws(ArchiveError) in
        guard let item = pending.removeValue(forKey: entry.path) else { return }
        guard SHA256.hex(entry.bytes) == item.chosen?.image.pngSHA256 else {
          throw .refusedEntry(
            source: inventory.source.description, entry: entry.path,
            reason: "it changed since it was read; rerun the merge")
        }
        try FileSystem.writeAtomically(
          entry.bytes, to: try safeURL(entry.path, in: plan.destination))
        result.written.append(entry.path)
        done += 1
        progress(done, writes.count)
      }
      if let missing = pending.keys.sorted().first {
        throw .refusedEntry(
          source: inventory.source.description, entry: missing,
          reason: "it disappeared since it was read; rerun the merge")
      }
    }
  }

  /// The URL of a destination path, refusing any path that would leave the destination,
  /// including through a symbolic link already present in the destination tree.
  func safeURL(_ path: String, in destination: URL) throws(ArchiveError) -> URL {
    if path.isEmpty { return destination }
    if let reason = EntryPath.validate(path) {
      throw .refusedEntry(source: destination.path, entry: path, reason: reason)
    }
    // Plain strings and lstat(2): URL appending per component costs more than the check.
    var current = destination.path
    for component in path.split(separator: "/") {
      if !current.hasSuffix("/") { current += "/" }
      current += component
      let kind: ArchiveEntry.Kind
      do {
        kind = try SourceReader.status(atPath: current).kind
      } catch {
        break  // Missing: nothing below it exists, so no link either.
      }
      if kind == .symbolicLink {
        throw .refusedEntry(
          source: destination.path, entry: path,
          reason: "\(current) is a symbolic link; merge-refs does not write through links")
      }
    }
    return destination.appendingPathComponent(path)
  }

  /// Removes temporary files an interrupted merge left in a folder.
  private func removeLeftovers(in folder: URL, relativeFolder: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasPrefix(FileSystem.temporaryPrefix) }.compactMap { name in
      unlink(folder.appendingPathComponent(name).path) == 0
        ? (relativeFolder.isEmpty ? name : "\(relativeFolder)/\(name)") : nil
    }
  }
}
