import Foundation
import ReferenceArchive

/// One kind of source `merge-refs` reads: this package's zip archives (`ArchiveFile`,
/// `NestedArchive`), a run's staging folder or an unpacked archive (`StagingFolder`), a run
/// record (`RunRecordFile`), and what other tools left (`ImportedSourceKind`: result bundles,
/// attachment exports, Swift Testing attachment folders, `__Snapshots__` trees).
///
/// The planner sees a source only through this protocol. A new kind (a GitLab artifact, a
/// hosted store) is one conformer, named in `MergeSource.kinds`.
public protocol MergeSourceKind: Sendable, Hashable, CustomStringConvertible {
  /// Opens a command-line argument: the sources it is when it is of this kind, or nil when it
  /// is not, so that the next kind is asked.
  /// - Throws: `MergeError` naming the argument when it is of this kind but refused.
  static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]?

  /// Lists its entries, each image by its package-relative path (its identity; the source's
  /// `description` and manifest are its provenance), and reads the bytes of those `wantsData`
  /// asks for, one entry in memory at a time; the manifest comes first where the kind has one.
  /// Listing and reading are one pass because a zip is read in order: a second walk would
  /// read it twice.
  /// - Parameter wantsData: Asked per path; entries it declines arrive without their bytes.
  func forEachEntry(
    limits: ArchiveLimits, wantsData: (String) -> Bool,
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError)

  /// Whether a manifest may come after some of its images: they then wait for it to vouch
  /// for them; otherwise images are decoded as they are read and the source is read once.
  func manifestMayFollowImages() -> Bool

  /// What it proves about completeness when it holds no manifest of its own, or nil when it is
  /// then a run that did not finish (the merge's default reading).
  var completenessWithoutManifest: String? { get }

  /// `completenessWithoutManifest` with its list of what did not land bounded to `limit`
  /// entries, for the warnings a terminal, a CI log and an annotation show.
  func completenessWithoutManifest(listing limit: Int) -> String?

  /// The file or folder it is read from: its modification time orders sources that nothing
  /// else orders.
  var fileURL: URL { get }

  /// For a kind that holds failed comparisons' renders without a manifest (Swift Testing's
  /// attachments): calls `body` with each such render's path and the PNG bytes of every
  /// reference its comparison was compared with (none when there was no reference). The merge
  /// lands such a render only while the destination holds one of those references' pixels,
  /// as it does for an archive's `failedComparison`.
  func forEachComparedReference(
    limits: ArchiveLimits, _ body: (String, [[UInt8]]) throws(MergeError) -> Void
  ) throws(MergeError)

  /// The sources, in their order, with what only several sources of this kind together show
  /// said by one of them (workers whose swift-snapshot-testing counters disagree); most kinds
  /// return them as they are.
  static func crossChecked(_ sources: [MergeSource]) -> [MergeSource]
}

extension MergeSourceKind {
  public var completenessWithoutManifest: String? { nil }

  public func completenessWithoutManifest(listing limit: Int) -> String? {
    completenessWithoutManifest
  }

  public func forEachComparedReference(
    limits: ArchiveLimits, _ body: (String, [[UInt8]]) throws(MergeError) -> Void
  ) throws(MergeError) {}

  public static func crossChecked(_ sources: [MergeSource]) -> [MergeSource] { sources }

  /// Whether another kind's value is this one: sources are keys (staging, plans).
  func isEqual(to other: any MergeSourceKind) -> Bool {
    (other as? Self) == self
  }
}
