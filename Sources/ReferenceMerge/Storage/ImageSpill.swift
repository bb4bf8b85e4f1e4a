import Foundation
import ReferenceImageCore

/// What the plan needs of each image beside its path, origin and flags: its two digests and
/// its size, a 72-byte `Record`, kept in a file (`SpillFile`) rather than in memory; and, at
/// the same number in a second file, the pixel digest of the reference an update replaces
/// (`MergePlan.Item.before`).
///
/// Rule: sources append their images' records as they finish reading; the plan reads them in
/// path order, source by source, so most reads hit the file's block cache. Cost: 72 bytes of
/// disk an image and a fixed cache in memory; where the temporary folder takes no file,
/// callers keep the records in memory instead (`PathPool.Records.held`).
final class ImageSpill: Sendable {
  /// One image's record.
  struct Record: Sendable, Equatable {
    /// SHA-256 of the PNG bytes.
    var png: SHA256Digest
    /// SHA-256 of the decoded RGBA8 pixels.
    var pixels: SHA256Digest
    /// The size, in 32 bits (a PNG's limit).
    var width: Int32
    var height: Int32
  }

  /// A replaced reference's pixel digest; a record never written (all zero bytes) has none.
  private struct Replaced {
    var pixels: SHA256Digest
    var isKnown: UInt64
  }

  private let records: SpillFile<Record>
  private let replaced: SpillFile<Replaced>

  /// New, empty spill files, or nil when the temporary folder takes no file: the caller then
  /// keeps the records in memory.
  static func make(
    in folder: String = NSTemporaryDirectory(), calls: FileCalls = .system
  ) -> ImageSpill? {
    guard
      let records = SpillFile<Record>(named: "merge-refs-images", in: folder, calls: calls),
      let replaced = SpillFile<Replaced>(named: "merge-refs-replaced", in: folder, calls: calls)
    else { return nil }
    return ImageSpill(records: records, replaced: replaced)
  }

  private init(records: SpillFile<Record>, replaced: SpillFile<Replaced>) {
    self.records = records
    self.replaced = replaced
  }

  /// Appends records.
  /// - Returns: The number of the first, or nil when the file could not take them (a full
  ///   disk): the caller keeps them in memory.
  func append(_ records: [Record]) -> Int? { self.records.append(records) }

  /// The record with a number `append` returned.
  func record(_ number: Int) -> Record { records.record(number) }

  /// Keeps the pixel digest of the reference the image of a record replaces.
  /// - Returns: Whether the file took it.
  func keepReplaced(_ pixels: SHA256Digest, at number: Int) -> Bool {
    replaced.write(Replaced(pixels: pixels, isKnown: 1), at: number)
  }

  /// The pixel digest `keepReplaced` kept for a record, or nil.
  func replaced(at number: Int) -> SHA256Digest? {
    let record = replaced.record(number)
    return record.isKnown == 1 ? record.pixels : nil
  }
}
