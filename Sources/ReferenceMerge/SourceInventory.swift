import Foundation
import ReferenceArchive
import ReferenceImageCore

/// What one source holds, learned by reading it once: its manifest and, per image, the hashes
/// that decide the merge. No pixel data is kept, so memory does not grow with the source count.
public struct SourceInventory: Sendable {
  /// One image of the source.
  public struct Image: Sendable, Hashable {
    /// The package-relative path.
    public var path: String
    /// SHA-256 of the PNG bytes: the entry's or, for an image the run recorded unchanged, the
    /// reference file's the run found holding its pixels.
    public var pngSHA256: SHA256Digest
    /// SHA-256 of the decoded RGBA8 pixels.
    public var pixelSHA256: SHA256Digest
    /// The size.
    public var width: Int
    /// The size.
    public var height: Int
    /// The producing test, when the manifest names it.
    public var test: String?
    /// False for an image the run recorded unchanged (`unchangedImages`): the source holds no
    /// entry for it, so it can only ever be unchanged, never written.
    public var isArchived = true
    /// For the render of a failed comparison: what it was compared with; it lands only over
    /// that reference.
    public var failedComparison: FailedComparison? = nil
  }

  /// A kept failure's manifest record, shared by reference: most images have none, and a
  /// reference costs each image of a merge of many archives one word, the record itself many.
  /// In `--json`, the record's fields and the test's name in one object.
  public final class FailedComparison: Sendable, Hashable, Codable {
    /// The record.
    public let record: ArchiveManifest.FailedComparison
    /// The test whose assertion failed.
    public let test: String?
    /// The pixel digest of the reference it was compared with; nil when there was none.
    public let referencePixels: SHA256Digest?
    /// The comparison and bound the test used (the image record's), so the review counts as
    /// the test did; nil in archives of older versions, which are judged exactly.
    public let comparison: ComparisonRecord?

    init(
      _ record: ArchiveManifest.FailedComparison, test: String?,
      comparison: ComparisonRecord? = nil
    ) {
      self.record = record
      self.test = test
      self.comparison = comparison
      referencePixels = record.referencePixelSHA256.flatMap(SHA256Digest.init(hex:))
    }

    private enum CodingKeys: String, CodingKey { case test }

    public convenience init(from decoder: Decoder) throws {
      let test = try decoder.container(keyedBy: CodingKeys.self)
        .decodeIfPresent(String.self, forKey: .test)
      self.init(try ArchiveManifest.FailedComparison(from: decoder), test: test)
    }

    public func encode(to encoder: Encoder) throws {
      try record.encode(to: encoder)
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encodeIfPresent(test, forKey: .test)
    }

    public static func == (a: FailedComparison, b: FailedComparison) -> Bool {
      a.record == b.record && a.test == b.test && a.comparison == b.comparison
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(record) }
  }

  /// The source.
  public let source: MergeSource
  /// Its manifest, if it has one, without its per-image records: those are folded into
  /// `images` (keeping both doubled the memory of merges over many archives).
  public let manifest: ArchiveManifest?
  /// Its images, sorted by path. An array, not a table by path: the plan finds images by
  /// position, and a hash table's free slots cost a merge of many archives more than the
  /// images themselves. Empty in a plan's inventories: once the plan is decided, its items
  /// hold what the merge needs of each image (`imageCount` still counts them).
  public internal(set) var images: [Image]
  /// How many images the source holds.
  public let imageCount: Int
  /// When its images were generated: the manifest's end (or start) time, else the file's date.
  public let generatedAt: Date
  /// Manifest records whose entry is missing from the source.
  public let missingEntries: [String]

  /// Whether the source is a finished run with a manifest that matches its entries.
  public var isComplete: Bool {
    manifest?.completion == .finished && missingEntries.isEmpty
  }

  /// Why the source is incomplete, or nil.
  public var incompleteReason: String? {
    guard let manifest else { return "no manifest (not written by a finished run)" }
    switch manifest.completion {
    case .running: return "the run was cut short (manifest says running)"
    case .failed: return "the run could not write every image"
    case .finished: break
    }
    if !missingEntries.isEmpty {
      return "\(missingEntries.count) images listed in the manifest are missing, first "
        + missingEntries[0]
    }
    return nil
  }

  /// Describes the worker for summaries.
  public var workerSummary: String { manifest?.worker.summary ?? "unknown worker" }
}

/// Reads sources into inventories, refusing unsafe or invalid entries.
struct InventoryScanner {
  let limits: ArchiveLimits
  let decoder = PNGDecoder()
  /// The destination, when known: entries its files already match are not read at all.
  var destination: Destination?
  /// Where entries that differ from the destination are kept for applying; nil for dry runs.
  var staging: MergeStaging?

  func scan(_ source: MergeSource) throws(ArchiveError) -> SourceInventory {
    var manifest: ArchiveManifest?
    var records: [String: ArchiveManifest.Image] = [:]
    var images: [String: SourceInventory.Image] = [:]
    // Images met before the manifest (hand-made or re-zipped archives; folders whose paths sort
    // before it) are only hashed and header-checked: the manifest, once it arrives, vouches for
    // their pixels as it does for the others. Only those it does not list are decoded, in a
    // second pass, so entry order never turns a merge into a decode of every image.
    var early: [String: (pngSHA256: SHA256Digest, width: Int, height: Int)] = [:]
    // An entry whose manifest record matches the destination file byte for byte cannot change
    // anything, so its contents are skipped: an up-to-date tree costs little more than hashing
    // its own files.
    var skipped: String?
    let manifestExpected = expectsManifest(source)
    var batch = DecodeBatch()
    // A refused source must not leave a batch staging files behind it.
    defer { batch.waitForInFlight() }
    let wantsData = { (path: String) -> Bool in
      guard let record = records[path], let destination else { return true }
      guard let recorded = SHA256Digest(hex: record.pngSHA256) else { return true }
      let wanted = destination.pngDigest(path) != recorded
      skipped = wanted ? nil : path
      return wanted
    }
    try SourceReader(limits: limits).forEachEntry(of: source, wantsData: wantsData) {
      (entry) throws(ArchiveError) in
      if entry.path == ArchiveManifest.entryName {
        guard manifest == nil else { throw refuse(source, entry.path, "a second manifest") }
        var decoded = try ArchiveManifest.decode(Data(entry.bytes), source: source.description)
        shareTestNames(&decoded)
        // Record paths name files to land and folders to search for orphans: the same rules
        // as entry paths hold for them.
        for path in decoded.images.map(\.path) + decoded.verifiedReferences {
          if let reason = EntryPath.validate(path) {
            throw refuse(source, path, "a manifest record: \(reason)")
          }
        }
        manifest = decoded
        records = Dictionary(decoded.images.map { ($0.path, $0) }) { first, _ in first }
        return
      }
      guard images[entry.path] == nil && early[entry.path] == nil && !batch.contains(entry.path)
      else {
        throw refuse(source, entry.path, "the path appears twice")
      }
      try check(entry, source: source)
      if skipped == entry.path, let record = records[entry.path] {
        images[entry.path] = .init(
          path: entry.path, pngSHA256: recordedDigest(record.pngSHA256),
          pixelSHA256: recordedDigest(record.pixelSHA256),
          width: record.width, height: record.height, test: record.test)
        return
      }
      if manifest == nil && !manifestExpected {
        // Hashed, staged and decoded on every core, a batch at a time, while the next batch
        // is read: this thread only reads.
        batch.add(entry.path, entry.bytes)
        if batch.isFull {
          try batch.submit(into: &images, refusing: refuse(source), staging: stager(source))
        }
        return
      }
      let pngSHA256 = SHA256Digest(of: entry.bytes)
      stageIfChanged(entry.bytes, pngSHA256: pngSHA256, source: source, path: entry.path)
      if manifest == nil {
        let size = try headerSize(entry, source: source)
        early[entry.path] = (pngSHA256, size.width, size.height)
      } else if records[entry.path] == nil {
        batch.add(entry.path, entry.bytes, pngSHA256: pngSHA256)
        if batch.isFull {
          try batch.submit(into: &images, refusing: refuse(source), staging: stager(source))
        }
      } else {
        images[entry.path] = try image(
          entry, pngSHA256: pngSHA256, source: source, record: records[entry.path])
      }
    }
    try batch.finish(into: &images, refusing: refuse(source), staging: stager(source))
    var undecoded: [String: SHA256Digest] = [:]
    for (path, seen) in early.sorted(by: { $0.key < $1.key }) {
      if let record = records[path] {
        images[path] = try vouched(
          path, pngSHA256: seen.pngSHA256, size: (seen.width, seen.height), source: source,
          record: record)
      } else {
        undecoded[path] = seen.pngSHA256
      }
    }
    if !undecoded.isEmpty {
      try SourceReader(limits: limits).forEachEntry(of: source) { (entry) throws(ArchiveError) in
        guard let pngSHA256 = undecoded.removeValue(forKey: entry.path) else { return }
        guard SHA256Digest(of: entry.bytes) == pngSHA256 else {
          throw refuse(source, entry.path, "it changed while it was read; rerun the merge")
        }
        // Staged, if it differs, in the first pass already.
        images[entry.path] = try image(entry, pngSHA256: pngSHA256, source: source, record: nil)
      }
      if let path = undecoded.keys.min() {
        throw refuse(source, path, "it disappeared while it was read; rerun the merge")
      }
    }
    try addUnchanged(manifest?.unchangedImages ?? [], to: &images, source: source)
    let recorded = manifest?.images ?? []
    for record in recorded {
      if let image = images[record.path], image.pixelSHA256 != recordedDigest(record.pixelSHA256) {
        throw refuse(source, record.path, "its pixels do not match its manifest record")
      }
      if let failure = record.failedComparison {
        if let digest = failure.referencePixelSHA256, SHA256Digest(hex: digest) == nil {
          throw refuse(source, record.path, "its compared reference digest is not SHA-256 hex")
        }
        images[record.path]?.failedComparison = .init(
          failure, test: record.test, comparison: record.comparison)
      }
    }
    // The per-image records now live in `images`; keeping a second copy of each would double
    // the memory a merge of many archives needs.
    manifest?.images = []
    manifest?.unchangedImages = nil
    // A use whose image this source holds says no more than the image's test does: only the
    // others (references a test compared and passed) are kept, so a fleet's merge does not hold
    // every path twice. `RunLedger` reads the places
    // of the few shared paths' uses again.
    let unrendered = manifest?.referenceUses?.filter { images[$0.path]?.test != $0.test }
    manifest?.referenceUses = unrendered
    // Likewise a verified path this source holds an image of: the image's item stands for it.
    let verifiedOnly = manifest?.verifiedReferences.filter { images[$0] == nil }
    if let verifiedOnly { manifest?.verifiedReferences = verifiedOnly }
    return SourceInventory(
      source: source, manifest: manifest, images: images.values.sorted { $0.path < $1.path },
      imageCount: images.count,
      generatedAt: manifest.map { $0.endedAt ?? $0.startedAt } ?? modificationDate(source),
      missingEntries: recorded.map(\.path).filter { images[$0] == nil }.sorted())
  }

  /// Adds the images the run recorded unchanged instead of archiving them: candidates with no
  /// entry, which the plan counts unchanged only while the destination holds their pixels.
  private func addUnchanged(
    _ records: [ArchiveManifest.UnchangedImage], to images: inout [String: SourceInventory.Image],
    source: MergeSource
  ) throws(ArchiveError) {
    for record in records {
      if let reason = EntryPath.validate(record.path) {
        throw refuse(source, record.path, "a manifest record: \(reason)")
      }
      guard images[record.path] == nil else {
        throw refuse(source, record.path, "the path appears twice")
      }
      images[record.path] = .init(
        path: record.path, pngSHA256: recordedDigest(record.pngSHA256),
        pixelSHA256: recordedDigest(record.pixelSHA256), width: record.width,
        height: record.height, test: record.test, isArchived: false)
    }
  }

  /// Makes records that name the same test share one string: a run's tests each produce
  /// many images, and the inventory keeps every record's test name.
  private func shareTestNames(_ manifest: inout ArchiveManifest) {
    var names: [String: String] = [:]
    for index in manifest.images.indices {
      let name = manifest.images[index].test
      if let shared = names[name] {
        manifest.images[index].test = shared
      } else {
        names[name] = name
      }
    }
  }

  /// Whether a manifest may come after some images. When it cannot (a zip whose directory
  /// lists none; a folder, whose manifest is read first), images are decoded as they are read
  /// and the source is read once; otherwise they wait for the manifest to vouch for them.
  private func expectsManifest(_ source: MergeSource) -> Bool {
    switch source.location {
    case .zip(let url):
      ZipDirectory.containsEntry(ArchiveManifest.entryName, in: .file(url)) ?? true
    case .nestedZip, .runRecord: true
    case .folder: false
    }
  }

  /// Keeps an entry for applying when the destination does not already hold these bytes.
  private func stageIfChanged(
    _ bytes: [UInt8], pngSHA256: SHA256Digest, source: MergeSource, path: String
  ) {
    stager(source)(bytes, pngSHA256, path)
  }

  /// `stageIfChanged` for the entries of `source`, callable from the decoding threads.
  private func stager(_ source: MergeSource) -> DecodeBatch.Stager {
    let (staging, destination) = (staging, destination)
    return { bytes, pngSHA256, path in
      guard let staging, destination?.pngDigest(path) != pngSHA256 else { return }
      staging.stage(bytes, source: source, path: path)
    }
  }

  /// The rules every image entry follows: a safe path, a regular file, a `.png` name.
  private func check(_ entry: ArchiveEntry, source: MergeSource) throws(ArchiveError) {
    if let reason = EntryPath.validate(entry.path) { throw refuse(source, entry.path, reason) }
    switch entry.kind {
    case .regularFile: break
    case .symbolicLink: throw refuse(source, entry.path, "it is a symbolic link")
    case .hardLink: throw refuse(source, entry.path, "it is a hard link")
    case .directory, .special: throw refuse(source, entry.path, "it is a device or special file")
    }
    guard entry.path.lowercased().hasSuffix(".png") else {
      throw refuse(source, entry.path, "not a PNG (the manifest is the only other entry allowed)")
    }
  }

  private func headerSize(
    _ entry: ArchiveEntry, source: MergeSource
  ) throws(ArchiveError) -> (width: Int, height: Int) {
    do { return try decoder.size(of: entry.bytes) } catch {
      throw refuse(source, entry.path, "not a valid PNG: \(error)")
    }
  }

  /// An image whose bytes must be exactly those its manifest record hashed; the record's pixel
  /// hash then holds without decoding.
  private func vouched(
    _ path: String, pngSHA256: SHA256Digest, size: (width: Int, height: Int),
    source: MergeSource, record: ArchiveManifest.Image
  ) throws(ArchiveError) -> SourceInventory.Image {
    guard SHA256Digest(hex: record.pngSHA256) == pngSHA256 else {
      throw refuse(source, path, "its bytes do not match its manifest record (corrupt?)")
    }
    guard size == (record.width, record.height) else {
      throw refuse(source, path, "its size does not match its manifest record")
    }
    return .init(
      path: path, pngSHA256: pngSHA256, pixelSHA256: recordedDigest(record.pixelSHA256),
      width: size.width, height: size.height, test: record.test)
  }

  private func image(
    _ entry: ArchiveEntry, pngSHA256: SHA256Digest, source: MergeSource,
    record: ArchiveManifest.Image?
  ) throws(ArchiveError) -> SourceInventory.Image {
    if let record {
      // The header is still checked, cheaply.
      return try vouched(
        entry.path, pngSHA256: pngSHA256, size: try headerSize(entry, source: source),
        source: source, record: record)
    }
    let pixels: RGBAImage
    do { pixels = try decoder.decode(entry.bytes) } catch {
      throw refuse(source, entry.path, "not a valid PNG: \(error)")
    }
    return .init(
      path: entry.path, pngSHA256: pngSHA256, pixelSHA256: SHA256Digest(of: pixels.pixels),
      width: pixels.width, height: pixels.height, test: nil)
  }

  /// A manifest record's digest. Records are not checked when the manifest is read, so text
  /// that is not lowercase hex stands for the digest of the text itself: equal texts still
  /// match each other and no real digest, as when digests were compared as text.
  private func recordedDigest(_ text: String) -> SHA256Digest {
    SHA256Digest(hex: text) ?? SHA256Digest(of: Array(text.utf8))
  }

  private func refuse(_ source: MergeSource) -> @Sendable (String, String) -> ArchiveError {
    { entry, reason in .refusedEntry(source: source.description, entry: entry, reason: reason) }
  }

  private func refuse(_ source: MergeSource, _ entry: String, _ reason: String) -> ArchiveError {
    .refusedEntry(source: source.description, entry: entry, reason: reason)
  }

  private func modificationDate(_ source: MergeSource) -> Date {
    let path: String
    switch source.location {
    case .zip(let url), .nestedZip(let url, _), .folder(let url), .runRecord(let url):
      path = url.path
    }
    return (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
      ?? .distantPast
  }
}

/// Images that must be decoded to learn their pixels (no manifest record vouches for them),
/// gathered in bounded batches: each batch is hashed, staged and decoded on every core while
/// the next one is read, so memory holds at most two batches of PNG bytes. Entries with the
/// same bytes as one already decoded in this source take its result (equal bytes decode to
/// equal pixels), so a set of repeated images is decoded once per distinct file.
struct DecodeBatch {
  /// Stages an entry (bytes, PNG SHA-256, path) if the destination does not hold it yet.
  typealias Stager = @Sendable ([UInt8], SHA256Digest, String) -> Void

  /// An entry; its PNG hash is nil until computed (and the entry staged) in the background.
  private typealias Entry = (path: String, bytes: [UInt8], pngSHA256: SHA256Digest?)

  /// What decoding a file taught: its size and pixel hash.
  private typealias Decoded = (width: Int, height: Int, pixelSHA256: SHA256Digest)

  /// The results of files already decoded, by PNG hash. Only the background task of the batch
  /// in flight touches it, and batches run one at a time.
  private final class DecodedFiles: @unchecked Sendable {
    var byPNGSHA256: [SHA256Digest: Decoded] = [:]
    /// Bounds the memory of a source of many distinct files (about 200 bytes per file); past
    /// it, new files are decoded every time they occur.
    let capacity = 4096
  }

  /// A batch decoding in the background.
  private final class InFlight: @unchecked Sendable {
    let entries: [Entry]
    let paths: Set<String>
    let group = DispatchGroup()
    // Written by the decoding task before it leaves `group`; read after `group.wait()`.
    var results: [Result<SourceInventory.Image, PNGError>] = []

    init(entries: [Entry], paths: Set<String>) {
      self.entries = entries
      self.paths = paths
    }
  }

  private var entries: [Entry] = []
  private var paths = Set<String>()
  private var byteCount = 0
  private var inFlight: InFlight?
  private let decodedFiles = DecodedFiles()

  var isFull: Bool { entries.count >= 256 || byteCount >= 16 << 20 }

  func contains(_ path: String) -> Bool {
    paths.contains(path) || inFlight?.paths.contains(path) == true
  }

  /// Adds an entry; without `pngSHA256`, it is hashed and staged when the batch is submitted.
  mutating func add(_ path: String, _ bytes: [UInt8], pngSHA256: SHA256Digest? = nil) {
    entries.append((path, bytes, pngSHA256))
    paths.insert(path)
    byteCount += bytes.count
  }

  /// Adds the images of the batch in flight, then starts this one in the background.
  /// - Throws: The error of the first entry, in entry order, that is not a valid PNG.
  mutating func submit(
    into images: inout [String: SourceInventory.Image],
    refusing refuse: (String, String) -> ArchiveError, staging: @escaping Stager
  ) throws(ArchiveError) {
    try collect(into: &images, refusing: refuse)
    guard !entries.isEmpty else { return }
    let flight = InFlight(entries: entries, paths: paths)
    let decodedFiles = decodedFiles
    DispatchQueue.global().async(group: flight.group) {
      flight.results = Self.process(flight.entries, decodedFiles: decodedFiles, staging: staging)
    }
    inFlight = flight
    entries.removeAll(keepingCapacity: true)
    paths.removeAll(keepingCapacity: true)
    byteCount = 0
  }

  /// Decodes everything still pending and adds the images.
  mutating func finish(
    into images: inout [String: SourceInventory.Image],
    refusing refuse: (String, String) -> ArchiveError, staging: @escaping Stager
  ) throws(ArchiveError) {
    try submit(into: &images, refusing: refuse, staging: staging)
    try collect(into: &images, refusing: refuse)
  }

  /// Hashes and stages the entries that need it, then decodes each distinct file once, all on
  /// every core; results in entry order.
  private static func process(
    _ entries: [Entry], decodedFiles: DecodedFiles, staging: @escaping Stager
  ) -> [Result<SourceInventory.Image, PNGError>] {
    let hashes = ConcurrentSlots.perform(entries.count) { index in
      let entry = entries[index]
      if let known = entry.pngSHA256 { return known }
      let pngSHA256 = SHA256Digest(of: entry.bytes)
      staging(entry.bytes, pngSHA256, entry.path)
      return pngSHA256
    }
    // The first entry of each file not decoded before; the others reuse its result.
    var firstIndex: [SHA256Digest: Int] = [:]
    for (index, pngSHA256) in hashes.enumerated()
    where decodedFiles.byPNGSHA256[pngSHA256] == nil && firstIndex[pngSHA256] == nil {
      firstIndex[pngSHA256] = index
    }
    let toDecode = firstIndex.values.sorted()
    let decoded = ConcurrentSlots.perform(toDecode.count) { position in
      Result { () throws(PNGError) -> Decoded in
        let pixels = try PNGDecoder().decode(entries[toDecode[position]].bytes)
        return (pixels.width, pixels.height, SHA256Digest(of: pixels.pixels))
      }
    }
    var thisBatch: [SHA256Digest: Result<Decoded, PNGError>] = [:]
    for (index, result) in zip(toDecode, decoded) {
      thisBatch[hashes[index]] = result
      if case .success(let file) = result,
        decodedFiles.byPNGSHA256.count < decodedFiles.capacity
      {
        decodedFiles.byPNGSHA256[hashes[index]] = file
      }
    }
    return zip(entries, hashes).map { entry, pngSHA256 in
      // Not decoded in this batch, so found in `decodedFiles` when the batch was planned.
      let file = thisBatch[pngSHA256] ?? .success(decodedFiles.byPNGSHA256[pngSHA256]!)
      return file.map { file in
        SourceInventory.Image(
          path: entry.path, pngSHA256: pngSHA256, pixelSHA256: file.pixelSHA256,
          width: file.width, height: file.height, test: nil)
      }
    }
  }

  /// Waits for the batch in flight, if any, dropping its results.
  func waitForInFlight() {
    inFlight?.group.wait()
  }

  private mutating func collect(
    into images: inout [String: SourceInventory.Image],
    refusing refuse: (String, String) -> ArchiveError
  ) throws(ArchiveError) {
    guard let flight = inFlight else { return }
    inFlight = nil
    flight.group.wait()
    for (entry, result) in zip(flight.entries, flight.results) {
      switch result {
      case .success(let image): images[entry.path] = image
      case .failure(let error): throw refuse(entry.path, "not a valid PNG: \(error)")
      }
    }
  }
}
