import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// Reads sources into inventories, refusing unsafe or invalid entries.
struct InventoryScanner {
  let limits: ArchiveLimits
  let decoder = PNGDecoder()
  /// The destination, when known: entries its files already match are not read at all.
  var destination: Destination?
  /// Where entries that differ from the destination are kept for applying; nil for dry runs.
  var staging: MergeStaging?
  /// Where the images' records are kept once the source is read; nil keeps them in memory.
  var imageSpill: ImageSpill?
  /// The values the inventories share with each other's; nil shares none.
  var sharedValues: SharedValues?

  /// One source's reading in progress: what its entries and manifest have taught so far.
  final class Reading {
    let source: MergeSource
    /// Whether a manifest may come after some images (see `expectsManifest`).
    let manifestExpected: Bool
    var manifest: ArchiveManifest?
    var records: [String: ArchiveManifest.Image] = [:]
    var images: [String: SourceInventory.Image] = [:]
    /// Images met before the manifest (hand-made or re-zipped archives; folders whose paths
    /// sort before it) are only hashed and header-checked: the manifest, once it arrives,
    /// vouches for their pixels as it does for the others. Only those it does not list are
    /// decoded, in a second pass, so entry order never turns a merge into a decode of every
    /// image.
    var early: [String: (pngSHA256: SHA256Digest, width: Int, height: Int)] = [:]
    /// The entries whose manifest record matches the destination file byte for byte, with the
    /// record's PNG digest: they cannot change anything, so their contents are skipped, and an
    /// up-to-date tree costs little more than hashing its own files. An up-to-date archive's
    /// entries are asked about twice (`ArchiveFile` lists them, then visits them); the
    /// destination is asked once.
    var held: [String: SHA256Digest] = [:]
    /// The destination's digests of the entries whose record it does not match (nil where it
    /// has no file), asked once while the entries are listed: the entry is staged, or not,
    /// without asking again. Remembering them in the destination cost a merge that changes
    /// every reference a table entry for each through its peak.
    var differing: [String: SHA256Digest?] = [:]
    var batch = DecodeBatch()
    /// Whether the source holds `ReportRequest.earlierReferencesMarker`.
    var isEarlierReferences = false

    init(_ source: MergeSource, manifestExpected: Bool) {
      self.source = source
      self.manifestExpected = manifestExpected
    }

    /// Whether an entry of this path was met already.
    func holds(_ path: String) -> Bool {
      images[path] != nil || early[path] != nil || batch.contains(path)
    }
  }

  /// Reads a source once (twice for images met before a manifest that does not list them),
  /// checking every entry, and returns what it holds.
  func scan(_ source: MergeSource) throws(MergeError) -> SourceInventory {
    let reading = Reading(source, manifestExpected: expectsManifest(source))
    // A refused source must not leave a batch staging files behind it.
    defer { reading.batch.waitForInFlight() }
    try SourceReader(limits: limits).forEachEntry(
      of: source, wantsData: { wantsData($0, reading) }
    ) { (entry) throws(MergeError) in
      try take(entry, into: reading)
    }
    try reading.batch.finish(
      into: &reading.images, refusing: refuse(source), staging: stager(source))
    try settleEarlyEntries(reading)
    try addUnchanged(reading.manifest?.unchangedImages ?? [], to: &reading.images, source: source)
    try attachRecords(reading)
    var inventory = inventory(reading)
    inventory.comparedReferences = try comparedReferences(source)
    return inventory
  }

  /// The pixel digests of the references a source's failed comparisons were compared with,
  /// for the kinds that hold them (`MergeSourceKind.forEachComparedReference`).
  private func comparedReferences(_ source: MergeSource) throws(MergeError)
    -> [String: [SHA256Digest]]
  {
    var found: [String: [SHA256Digest]] = [:]
    try source.kind.forEachComparedReference(limits: limits) {
      (path, references) throws(MergeError) in
      var digests: [SHA256Digest] = []
      for bytes in references {
        do {
          digests.append(SHA256Digest(of: try decoder.decode(bytes).pixels))
        } catch {
          throw refuse(source, path, "the reference its comparison was compared with: \(error)")
        }
      }
      found[path] = digests
    }
    return found
  }

  /// Whether an entry's bytes are needed: not when its manifest record matches the destination
  /// file byte for byte.
  private func wantsData(_ path: String, _ reading: Reading) -> Bool {
    guard reading.held[path] == nil else { return false }
    guard reading.differing[path] == nil, let record = reading.records[path], let destination
    else { return true }
    let actual = destination.pngDigest(path)
    guard actual == record.pngSHA256 else {
      reading.differing[path] = .some(actual)
      return true
    }
    reading.held[path] = record.pngSHA256
    return false
  }

  /// Takes one entry: the manifest, or an image to vouch for, batch for decoding, or keep for
  /// the manifest to come.
  private func take(_ entry: ArchiveEntry, into reading: Reading) throws(MergeError) {
    let source = reading.source
    if entry.path == ArchiveManifest.entryName { return try takeManifest(entry, into: reading) }
    if entry.path == ReportRequest.earlierReferencesMarker {
      guard !reading.isEarlierReferences else {
        throw refuse(source, entry.path, "the path appears twice")
      }
      reading.isEarlierReferences = true
      return
    }
    guard !reading.holds(entry.path) else {
      throw refuse(source, entry.path, "the path appears twice")
    }
    if let pngSHA256 = reading.held[entry.path], let record = reading.records[entry.path] {
      // Its path passed the same rules as its record's, when the manifest was read.
      try checkKind(entry, source: source)
      reading.images[entry.path] = .init(
        path: entry.path, pngSHA256: pngSHA256,
        pixelSHA256: record.pixelSHA256,
        width: record.width, height: record.height, test: record.owner, destinationHeldIt: true)
      return
    }
    try check(entry, source: source)
    if reading.manifest == nil && !reading.manifestExpected {
      // Hashed, staged and decoded on every core, a batch at a time, while the next batch is
      // read: this thread only reads.
      return try addToBatch(entry, pngSHA256: nil, reading)
    }
    let pngSHA256 = SHA256Digest(of: entry.bytes)
    stageIfChanged(
      entry.bytes, pngSHA256: pngSHA256, source: source, path: entry.path,
      destinationDigest: reading.differing.removeValue(forKey: entry.path))
    if reading.manifest == nil {
      let size = try headerSize(entry, source: source)
      reading.early[entry.path] = (pngSHA256, size.width, size.height)
    } else if let record = reading.records[entry.path] {
      reading.images[entry.path] = try image(
        entry, pngSHA256: pngSHA256, source: source, record: record)
    } else {
      try addToBatch(entry, pngSHA256: pngSHA256, reading)
    }
  }

  /// Adds an entry to the decode batch, submitting the batch when it is full.
  private func addToBatch(_ entry: ArchiveEntry, pngSHA256: SHA256Digest?, _ reading: Reading)
    throws(MergeError)
  {
    reading.batch.add(entry.path, entry.bytes, pngSHA256: pngSHA256)
    guard reading.batch.isFull else { return }
    try reading.batch.submit(
      into: &reading.images, refusing: refuse(reading.source), staging: stager(reading.source))
  }

  /// The inventory, with the manifest trimmed to what the plan needs beside the images.
  private func inventory(_ reading: Reading) -> SourceInventory {
    let images = reading.images
    var manifest = reading.manifest
    let recorded = manifest?.images ?? []
    // The per-image records now live in `images`; keeping a second copy of each would double
    // the memory a merge of many archives needs.
    manifest?.images = []
    manifest?.unchangedImages = nil
    // A use whose image this source holds says no more than the image's test does: only the
    // others (references a test compared and passed) are kept, so a fleet's merge does not hold
    // every path twice. `RunLedger` reads the places of the few shared paths' uses again.
    var suiteFiles: [String: Set<String>] = [:]
    for use in manifest?.referenceUses ?? [] {
      suiteFiles[SkippedTestScope.suite(of: use.test), default: []].insert(use.file)
    }
    let unrendered = manifest?.referenceUses?.filter { images[$0.path]?.test != $0.owner }
    manifest?.referenceUses = unrendered
    // Likewise a verified path this source holds an image of: the image's item stands for it.
    if let verifiedOnly = manifest?.verifiedReferences.filter({ images[$0] == nil }) {
      manifest?.verifiedReferences = verifiedOnly
    }
    if let sharedValues, let kept = manifest {
      manifest = sharedValues.manifest(kept)
      suiteFiles = sharedValues.suiteFiles(suiteFiles)
    }
    var inventory = SourceInventory(
      source: reading.source, manifest: manifest,
      images: pooled(images), imageCount: images.count,
      generatedAt: manifest.map { $0.endedAt ?? $0.startedAt } ?? modificationDate(reading.source),
      missingEntries: recorded.map(\.path).filter { images[$0] == nil }.sorted())
    inventory.suiteFiles = suiteFiles
    inventory.isEarlierReferences = reading.isEarlierReferences
    return inventory
  }

  /// The images sorted by path, their paths and records pooled (`PathPool`, the records in
  /// `imageSpill`) and their origins shared (`ImageList`): the strings and objects the
  /// reading made for each go with it.
  private func pooled(_ images: [String: SourceInventory.Image]) -> SourceInventory.ImageList {
    let sorted = images.sorted { $0.key < $1.key }
    let records = sorted.map { $0.value.pooledPath.record }
    let pool = PathPool(sorted.lazy.map(\.key), records: .spilled(records, to: imageSpill))
    return SourceInventory.ImageList(pooling: sorted.lazy.map(\.value), in: pool)
  }

  /// Whether a manifest may come after some images. When it cannot (a zip whose directory
  /// lists none; a folder, whose manifest is read first), images are decoded as they are read
  /// and the source is read once; otherwise they wait for the manifest to vouch for them.
  private func expectsManifest(_ source: MergeSource) -> Bool {
    source.kind.manifestMayFollowImages()
  }

  /// Keeps an entry for applying when the destination does not already hold these bytes.
  /// - Parameter known: The destination's digest, when it was asked while listing (nil inside
  ///   where it has no file).
  private func stageIfChanged(
    _ bytes: [UInt8], pngSHA256: SHA256Digest, source: MergeSource, path: String,
    destinationDigest known: SHA256Digest??
  ) {
    guard let known else { return stager(source)(bytes, pngSHA256, path) }
    guard known != pngSHA256, let staging else { return }
    staging.stage(bytes, source: source, path: path)
  }

  /// `stageIfChanged` for the entries of `source`, callable from the decoding threads.
  private func stager(_ source: MergeSource) -> DecodeBatch.Stager {
    let (staging, destination) = (staging, destination)
    return { bytes, pngSHA256, path in
      // Asked in a dry run too, and a file that holds the bytes remembered: the plan asks
      // again, after the digest cache is let go.
      guard destination?.holds(path, digest: pngSHA256, remembering: true) != true,
        let staging
      else { return }
      staging.stage(bytes, source: source, path: path)
    }
  }

  func refuse(_ source: MergeSource) -> @Sendable (String, String) -> MergeError {
    { entry, reason in .refusedEntry(source: source.description, entry: entry, reason: reason) }
  }

  func refuse(_ source: MergeSource, _ entry: String, _ reason: String) -> MergeError {
    .refusedEntry(source: source.description, entry: entry, reason: reason)
  }

  private func modificationDate(_ source: MergeSource) -> Date {
    let path = source.kind.fileURL.path
    return (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
      ?? .distantPast
  }
}
