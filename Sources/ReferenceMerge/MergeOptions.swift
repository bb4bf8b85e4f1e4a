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
  /// Write what lands in the smallest lossless form (`CompactRewrite`): the references in the
  /// tree after the merge, or the objects uploaded to a store.
  public var compact = false

  /// Creates options with the defaults.
  public init() {}

  /// The `merge-refs` options that decide what lands, as words, in the order `--help` lists
  /// them: every command printed for a person to run (the page's land command, the prune
  /// command) spells them here. The include filter and the shard proof are the caller's.
  public var landingWords: [String] {
    var words: [String] = []
    if onConflict != .fail { words += ["--on-conflict", onConflict.rawValue] }
    if prune { words.append("--prune") }
    if requireComplete { words.append("--require-complete") }
    if keepGoing { words.append("--keep-going") }
    if compact { words.append("--compact") }
    return words
  }
}
