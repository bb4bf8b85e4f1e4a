import Foundation
import ReferenceContracts
import ReferenceImageCore

/// What one source holds, learned by reading it once: its manifest and, per image, the hashes
/// that decide the merge. No pixel data is kept, so memory does not grow with the source count.
public struct SourceInventory: Sendable {
  /// One image of the source: 24 bytes beside its name's in the source's `PathPool` and its
  /// 72-byte record (digests and size) in the merge's `ImageSpill` file (a test asserts the
  /// size). With its path as a string of its own and its test and failure in fields of their
  /// own, it would cost a merge of many archives 128 bytes and about 108 for the string; with
  /// its record in memory, 96 bytes. A source's list keeps 3 bytes of it and makes it when
  /// asked (`ImageList`).
  public struct Image: Sendable, Hashable {
    /// The package-relative path, pooled with its source's others once the source is read
    /// (`PathPool`), and with it the image's record: its digests and size.
    var pooledPath: PooledPath
    /// False for an image the run recorded unchanged (`unchangedImages`): the source holds no
    /// entry for it, so it can only ever be unchanged, never written.
    public var isArchived = true
    /// Whether the destination held exactly these PNG bytes when the source was read, so its
    /// entry was not even opened: the path is unchanged, and no one asks the destination again
    /// (which would cost a rerun of many archives a table of every path's digest).
    var destinationHeldIt = false
    /// The test and the kept failure, one object that a source's images of one test without a
    /// failure share (`ImageList`).
    private(set) var origin: Origin?
    /// SHA-256 of the PNG bytes: the entry's or, for an image the run recorded unchanged, the
    /// reference file's the run found holding its pixels. Kept beside the path, in its pool
    /// (`PathPool.Records`).
    public var pngSHA256: SHA256Digest { pooledPath.record.png }
    /// SHA-256 of the decoded RGBA8 pixels.
    public var pixelSHA256: SHA256Digest { pooledPath.record.pixels }

    /// The producing test, when the manifest names it: its owner (`ArchiveManifest.Image.owner`),
    /// which names a parameterized test's case with its arguments.
    public var test: String? {
      get { origin?.test }
      set { origin = Origin.of(test: newValue, failedComparison: failedComparison) }
    }
    /// For the render of a failed comparison: what it was compared with; it lands only over
    /// that reference.
    public var failedComparison: FailedComparison? {
      get { origin?.failedComparison }
      set { origin = Origin.of(test: test, failedComparison: newValue) }
    }

    /// An image's test and kept failure: one word in the image, where the two took three.
    final class Origin: Sendable, Hashable {
      let test: String?
      let failedComparison: FailedComparison?

      private init(test: String?, failedComparison: FailedComparison?) {
        self.test = test
        self.failedComparison = failedComparison
      }

      /// The origin, or nil when there is neither.
      static func of(test: String?, failedComparison: FailedComparison?) -> Origin? {
        test == nil && failedComparison == nil
          ? nil : Origin(test: test, failedComparison: failedComparison)
      }

      static func == (a: Origin, b: Origin) -> Bool {
        a.test == b.test && a.failedComparison == b.failedComparison
      }

      func hash(into hasher: inout Hasher) {
        hasher.combine(test)
        hasher.combine(failedComparison)
      }
    }

    init(
      path: String, pngSHA256: SHA256Digest, pixelSHA256: SHA256Digest, width: Int,
      height: Int, test: String?, isArchived: Bool = true, destinationHeldIt: Bool = false,
      failedComparison: FailedComparison? = nil
    ) {
      pooledPath = PooledPath(
        path,
        record: .init(
          png: pngSHA256, pixels: pixelSHA256, width: Int32(clamping: width),
          height: Int32(clamping: height)))
      self.isArchived = isArchived
      self.destinationHeldIt = destinationHeldIt
      origin = Origin.of(test: test, failedComparison: failedComparison)
    }

    /// An image from its parts, as a source's `ImageList` keeps them.
    init(pooledPath: PooledPath, isArchived: Bool, destinationHeldIt: Bool, origin: Origin?) {
      self.pooledPath = pooledPath
      self.isArchived = isArchived
      self.destinationHeldIt = destinationHeldIt
      self.origin = origin
    }

    /// The package-relative path.
    public var path: String { pooledPath.string }

    public static func == (a: Image, b: Image) -> Bool {
      a.pooledPath == b.pooledPath && a.isArchived == b.isArchived
        && a.destinationHeldIt == b.destinationHeldIt && a.origin == b.origin
        && a.pooledPath.record == b.pooledPath.record
    }

    public func hash(into hasher: inout Hasher) {
      hasher.combine(pooledPath)
      hasher.combine(pixelSHA256)
    }
    /// The size.
    public var width: Int { Int(pooledPath.record.width) }
    /// The size.
    public var height: Int { Int(pooledPath.record.height) }
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
    public var referencePixels: SHA256Digest? { record.referencePixelSHA256 }
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
  /// Its images, sorted by path. A list, not a table by path: the plan finds images by
  /// position, and a hash table's free slots cost a merge of many archives more than the
  /// images themselves. Empty in a plan's inventories: planning moves the list into the table
  /// its items point into (`MergePlan.ReadImages`); `imageCount` still counts them.
  public internal(set) var images: ImageList
  /// How many images the source holds.
  public let imageCount: Int
  /// When its images were generated: the manifest's end (or start) time, else the file's date.
  public let generatedAt: Date
  /// Manifest records whose entry is missing from the source.
  public let missingEntries: [String]
  /// The files the run's assertions were made in, by suite (`Module.Class`, `Module.Suite`,
  /// or the module of a free function): read before the uses are trimmed, so an orphan search
  /// knows which reference folders a skipped test's suite may own.
  public internal(set) var suiteFiles: [String: Set<String>] = [:]

  /// For renders of failed comparisons that a source without a manifest holds with what they
  /// were compared with (`MergeSourceKind.forEachComparedReference`): per path, the pixel
  /// digests of those references, empty when there was none.
  public internal(set) var comparedReferences: [String: [SHA256Digest]] = [:]

  /// Whether the source is the earlier references a landed review report kept
  /// (`ReportRequest.earlierReferencesMarker`): not a run, so never complete (it proves nothing
  /// about orphans), nor incomplete (nothing of it was cut short).
  public internal(set) var isEarlierReferences = false

  /// Whether the source is a finished run with a manifest that matches its entries.
  public var isComplete: Bool {
    manifest?.completion == .finished && missingEntries.isEmpty
  }

  /// Whether the source is a run that was cut short or left no manifest: what the summary
  /// counts and warns of, and `--require-complete` refuses.
  public var isIncomplete: Bool { !isComplete && !(manifest == nil && isEarlierReferences) }

  /// Why the source is incomplete, or nil: in full (`--json`, `--verbose`).
  public var incompleteReason: String? { incompleteReason(listing: nil) }

  /// Why the source is incomplete, or nil, with a kind's list of what did not land bounded to
  /// `limit` entries (the warnings); in full when `limit` is nil.
  public func incompleteReason(listing limit: Int?) -> String? {
    guard let manifest else {
      // A kind may say itself what it proves (an imported one, what of it did not land).
      let proof =
        limit.map { source.kind.completenessWithoutManifest(listing: $0) }
        ?? source.kind.completenessWithoutManifest
      if let proof { return proof }
      return isEarlierReferences ? nil : "no manifest (not written by a finished run)"
    }
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
  public var workerSummary: String { manifest?.worker.summary ?? Self.unknownWorker }

  /// The worker of a source without a manifest.
  static let unknownWorker = "unknown worker"
}
