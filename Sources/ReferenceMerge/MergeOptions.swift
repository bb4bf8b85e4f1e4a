import ReferenceArchive

/// The choices that shape a merge.
public struct MergeOptions: Sendable {
  /// What to do when sources disagree about a path.
  public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// Write nothing at all and list the conflicts.
    case fail
    /// Take the image of the most recently generated source.
    case newest
  }

  /// The conflict policy; `.fail` by default.
  public var onConflict: ConflictPolicy = .fail
  /// Delete orphans and redundant variant files.
  public var prune = false
  /// Refuse incomplete sources (cut-short runs, no manifest).
  public var requireComplete = false
  /// Skip corrupt or hostile sources instead of stopping.
  public var keepGoing = false
  /// When set, only the paths it includes land (`--include`, `--include-from`).
  public var include: IncludeFilter?
  /// What proves that the runs covered every test, so that orphans may be looked for.
  public var orphanProof = OrphanSearch.Proof.manifests
  /// Archive limits.
  public var limits = ArchiveLimits.default

  /// Creates options with the defaults.
  public init() {}
}
