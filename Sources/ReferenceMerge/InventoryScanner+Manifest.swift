import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

// A source's manifest: read once, its records checked, and the images met before it vouched for.
extension InventoryScanner {
  /// Reads the manifest, refusing a second one and records whose paths break the entry rules.
  func takeManifest(_ entry: ArchiveEntry, into reading: Reading) throws(MergeError) {
    let source = reading.source
    guard reading.manifest == nil else { throw refuse(source, entry.path, "a second manifest") }
    var decoded = try MergeError.catching { () throws(ManifestError) in
      try ArchiveManifest.decode(Data(entry.bytes), source: source.description)
    }
    shareTestNames(&decoded)
    // Record paths name files to land and folders to search for orphans: the same rules as
    // entry paths hold for them.
    for path in decoded.images.lazy.map(\.path) {
      try validateRecord(path, source: source)
    }
    for path in decoded.verifiedReferences {
      try validateRecord(path, source: source)
    }
    reading.manifest = decoded
    reading.records = Dictionary(decoded.images.map { ($0.path, $0) }) { first, _ in first }
    // Sized once: grown by doubling, the tables rehashed every path several times.
    reading.images.reserveCapacity(decoded.images.count + (decoded.unchangedImages?.count ?? 0))
    reading.held.reserveCapacity(decoded.images.count)
  }

  /// Refuses a manifest record's path that breaks the entry rules.
  private func validateRecord(_ path: String, source: MergeSource) throws(MergeError) {
    if let reason = EntryPath.validate(path) {
      throw refuse(source, path, "a manifest record: \(reason)")
    }
  }

  /// The images met before the manifest: vouched for by their records, or, for those the
  /// manifest does not list, read again and decoded.
  func settleEarlyEntries(_ reading: Reading) throws(MergeError) {
    let source = reading.source
    var undecoded: [String: SHA256Digest] = [:]
    for (path, seen) in reading.early.sorted(by: { $0.key < $1.key }) {
      if let record = reading.records[path] {
        reading.images[path] = try vouched(
          path, pngSHA256: seen.pngSHA256, size: (seen.width, seen.height), source: source,
          record: record)
      } else {
        undecoded[path] = seen.pngSHA256
      }
    }
    guard !undecoded.isEmpty else { return }
    try SourceReader(limits: limits).forEachEntry(of: source) { (entry) throws(MergeError) in
      guard let pngSHA256 = undecoded.removeValue(forKey: entry.path) else { return }
      guard SHA256Digest(of: entry.bytes) == pngSHA256 else {
        throw refuse(source, entry.path, "it changed while it was read; rerun the merge")
      }
      // Staged, if it differs, in the first pass already.
      reading.images[entry.path] = try image(
        entry, pngSHA256: pngSHA256, source: source, record: nil)
    }
    if let path = undecoded.keys.min() {
      throw refuse(source, path, "it disappeared while it was read; rerun the merge")
    }
  }

  /// Checks each image against its manifest record and attaches the record's failed
  /// comparison.
  func attachRecords(_ reading: Reading) throws(MergeError) {
    let source = reading.source
    for record in reading.manifest?.images ?? [] {
      if let image = reading.images[record.path], image.pixelSHA256 != record.pixelSHA256 {
        throw refuse(source, record.path, "its pixels do not match its manifest record")
      }
      guard let failure = record.failedComparison else { continue }
      reading.images[record.path]?.failedComparison = .init(
        failure, test: record.owner, comparison: record.comparison)
    }
  }

  /// Adds the images the run recorded unchanged instead of archiving them: candidates with no
  /// entry, which the plan counts unchanged only while the destination holds their pixels.
  func addUnchanged(
    _ records: [ArchiveManifest.UnchangedImage], to images: inout [String: SourceInventory.Image],
    source: MergeSource
  ) throws(MergeError) {
    for record in records {
      if let reason = EntryPath.validate(record.path) {
        throw refuse(source, record.path, "a manifest record: \(reason)")
      }
      guard images[record.path] == nil else {
        throw refuse(source, record.path, "the path appears twice")
      }
      var image = SourceInventory.Image(
        path: record.path, pngSHA256: record.pngSHA256,
        pixelSHA256: record.pixelSHA256, width: record.width,
        height: record.height, test: record.owner, isArchived: false)
      // Asked now, while the digest cache answers: the plan asks only after it is let go.
      image.destinationHeldIt =
        destination?.holds(record.path, digest: image.pngSHA256) ?? false
      images[record.path] = image
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
}
