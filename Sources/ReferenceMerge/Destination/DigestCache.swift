import Foundation
import ReferenceArchive
import ReferenceImageCore

/// The SHA-256 of destination files as of the last merge, keyed by device, inode, size and
/// modification time (nanoseconds), kept in the package's `.build` folder, so a rerun into an
/// up-to-date tree decides "unchanged" from one `fstatat` per file instead of reading it.
///
/// Git's rule for racy timestamps holds: an entry counts only when the file's modification
/// time is older than the cache file's own, since a file changed in the same clock tick as the
/// cache was written could keep its time stamp and size. Such files are hashed again.
final class DigestCache: @unchecked Sendable {
  /// One file's digest, found by its path's key and trusted only while the file is the same
  /// (device, inode, size, time). The key is a hash, not the path: two paths that share a key
  /// are still two files with two inodes, so a shared key costs a hash, never a wrong digest.
  struct Entry {
    var key: UInt64
    var device: UInt64
    var inode: UInt64
    var size: Int
    var modified: Int64
    var digest: SHA256Digest
  }

  /// The cache file's name inside `.build`.
  static let fileName = "merge-refs-digests"
  /// How many learned entries `save()` sorts in memory at once: 16,384 (1.2 MB), small beside
  /// the rest of a first merge's peak; a longer run would be the peak's largest allocation.
  static let defaultRunLength = 1 << 14

  private let calls: FileCalls
  private let buildFolder: Int32
  private let lock = NSLock()
  /// The cache file as the merge found it, answering from where its records lie.
  private let stored: StoredDigests?
  /// The entries learned this run, in the order learned, in a file of their own beside the
  /// cache: a first merge learns one for every file.
  private var journal: (handle: Int32, writer: RecordWriter)?
  private var learned = 0
  /// Whether writing the journal failed: nothing more is written, and the old cache stays.
  private var broken = false
  private var saved = false
  private let runLength: Int

  /// Opens the cache of a package, or returns nil when the package has no `.build` folder
  /// (a destination that is not a built package gets no cache file).
  /// - Parameter runLength: How many learned entries `save()` sorts at once.
  init?(root: Int32, calls: FileCalls, runLength: Int = defaultRunLength) {
    let buildFolder = calls.openAt(root, ".build", O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    guard buildFolder >= 0 else { return nil }
    self.calls = calls
    self.buildFolder = buildFolder
    self.runLength = runLength
    let handle = calls.openAt(buildFolder, Self.fileName, O_RDONLY | O_NOFOLLOW)
    stored = handle < 0 ? nil : StoredDigests(handle: handle, calls: calls)
    if handle >= 0 && stored == nil { _ = calls.close(handle) }
  }

  deinit {
    discardJournal()
    if let stored { _ = calls.close(stored.handle) }
    _ = calls.close(buildFolder)
  }

  /// The digest of a file whose status matches its entry and is older than the cache.
  func digest(_ path: String, status: FileStatus) -> SHA256Digest? {
    guard let stored, let entry = stored.entry(for: PathKey.of(path)),
      entry.device == status.device, entry.inode == status.inode,
      entry.size == status.size, entry.modified == status.modified,
      status.modified < stored.writtenAt
    else { return nil }
    return entry.digest
  }

  /// Records the digest of a file as it is now. Its stored entry, if any, no longer matches
  /// the file (else it would have answered), so it never answers for it this run either.
  func remember(_ path: String, status: FileStatus, digest: SHA256Digest) {
    lock.lock()
    defer { lock.unlock() }
    guard !saved && !broken else { return }
    if journal == nil {
      let name = FileSystem.temporaryName(for: Self.fileName + "-learned")
      let handle = calls.openAt(buildFolder, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW)
      guard handle >= 0 else {
        broken = true
        return
      }
      // Read back through its handle only: unlinked at once, a killed merge leaves nothing.
      _ = calls.unlinkAt(buildFolder, name, false)
      journal = (handle, RecordWriter(handle: handle, calls: calls, offset: 0))
    }
    journal?.writer.write(
      Entry(
        key: PathKey.of(path), device: status.device, inode: status.inode, size: status.size,
        modified: status.modified, digest: digest))
    learned += 1
    if journal?.writer.failure != nil { broken = true }
  }

  /// Writes the cache when something was learned: the stored entries and the learned ones
  /// merged by key, a learned one winning, into a new file renamed into place. A cache that
  /// cannot be written costs the next run time, not correctness, so failures are ignored.
  /// Saved once, when a merge ends: what is learned afterwards is not kept.
  func save() {
    lock.lock()
    defer {
      saved = true
      discardJournal()
      lock.unlock()
    }
    guard learned > 0, !saved, !broken, journal != nil else { return }
    journal?.writer.flush()
    guard let journal, journal.writer.failure == nil, let runs = sortRuns(of: journal.handle)
    else { return }
    removeAbandonedSaves()
    let name = FileSystem.temporaryName(for: Self.fileName)
    let handle = calls.openAt(buildFolder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW)
    guard handle >= 0 else { return }
    let header = DigestCacheFile.header
    var written =
      header.withUnsafeBytes { calls.writeAll($0, to: handle, at: 0) } == nil
      && merge(runs, of: journal.handle, into: handle)
    written = calls.close(handle) == 0 && written
    if !written || calls.renameAt(buildFolder, name, buildFolder, Self.fileName) != 0 {
      _ = calls.unlinkAt(buildFolder, name, false)
    }
  }

  /// Removes the new cache files of merges killed while saving: such a file is as large as the
  /// cache, and no rename will ever take it. One whose merge is still running may be another
  /// merge's save of this package, and stays.
  private func removeAbandonedSaves() {
    for entry in calls.list(buildFolder) ?? [] where entry.kind == .regularFile {
      guard
        let process = FileSystem.writingProcess(ofTemporary: entry.name, for: Self.fileName),
        process != getpid(),
        kill(process, 0) != 0, errno == ESRCH
      else { continue }
      _ = calls.unlinkAt(buildFolder, entry.name, false)
    }
  }

  /// Sorts the journal by key in runs of `runLength` entries, each written back in place with
  /// the last learned entry of each key only; the caller holds `lock`.
  /// - Returns: The runs' record positions, nil when reading or writing failed.
  private func sortRuns(of handle: Int32) -> [Range<Int>]? {
    var runs: [Range<Int>] = []
    for start in stride(from: 0, to: learned, by: runLength) {
      var reader = RecordReader(
        handle: handle, calls: calls, records: start..<min(start + runLength, learned),
        headerSize: 0)
      var entries: [Entry] = []
      entries.reserveCapacity(min(runLength, learned - start))
      while let entry = reader.next() { entries.append(entry) }
      guard !reader.failed else { return nil }
      entries.sort { $0.key < $1.key }  // stable: a key's later entries stay later
      var writer = RecordWriter(
        handle: handle, calls: calls, offset: start * DigestCacheFile.recordSize)
      var kept = 0
      for (index, entry) in entries.enumerated()
      where index + 1 == entries.count || entries[index + 1].key != entry.key {
        writer.write(entry)
        kept += 1
      }
      writer.flush()
      guard writer.failure == nil else { return nil }
      runs.append(start..<start + kept)
    }
    return runs
  }

  /// Writes the stored entries and the sorted runs merged by key: of entries with one key,
  /// the latest run's, else the stored one. A stored entry not older than its file is not
  /// carried, since the new file's later time would make it trusted. The caller holds `lock`.
  /// - Returns: Whether every entry was read and written.
  private func merge(_ runs: [Range<Int>], of journal: Int32, into handle: Int32) -> Bool {
    var readers: [RecordReader] = []
    if let stored {
      readers.append(RecordReader(handle: stored.handle, calls: calls, records: 0..<stored.count))
    }
    let storedReaders = readers.count
    for run in runs {
      readers.append(RecordReader(handle: journal, calls: calls, records: run, headerSize: 0))
    }
    var heads = readers.indices.map { readers[$0].next() }
    // The readers by their next key, then their position: a first merge of 500,000 images
    // sorts its journal in 31 runs.
    var queue = ReaderQueue(heads.indices.filter { heads[$0] != nil }) { a, b in
      (heads[a]!.key, a) < (heads[b]!.key, b)
    }
    var holding: [Int] = []
    var writer = RecordWriter(handle: handle, calls: calls, offset: DigestCacheFile.headerSize)
    while let first = queue.popFirst() {
      // Of the readers holding the smallest key, the latest's entry wins; each moves on.
      let key = heads[first]!.key
      holding.removeAll(keepingCapacity: true)
      holding.append(first)
      while let next = queue.first, heads[next]!.key == key { holding.append(queue.popFirst()!) }
      let latest = holding.last!
      let entry = heads[latest]!
      if latest >= storedReaders || entry.modified < (stored?.writtenAt ?? .min) {
        writer.write(entry)
      }
      for index in holding {
        heads[index] = readers[index].next()
        if heads[index] != nil { queue.insert(index) }
      }
    }
    writer.flush()
    return writer.failure == nil && !readers.contains { $0.failed }
  }

  /// Closes the journal, which goes with its handle; the caller holds `lock`.
  private func discardJournal() {
    guard let journal else { return }
    self.journal = nil
    _ = calls.close(journal.handle)
  }
}
