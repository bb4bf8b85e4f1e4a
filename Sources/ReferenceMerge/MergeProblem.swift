import ReferenceArchive
import ReferenceContracts

/// Something that went wrong in a merge. Its kind, not its text, decides whether the merge
/// stops and which exit code the run ends with (`MergeSession.Conclusion`).
public enum MergeProblem: Sendable, Equatable, CustomStringConvertible {
  /// A SOURCE argument could not even be listed (missing, unreadable folder).
  case unlistableSource(MergeError)
  /// A source was refused as corrupt or hostile; `--keep-going` skips it.
  case refusedSource(MergeError)
  /// A destination path cannot be written safely (a symbolic link on the way).
  case unsafeDestination(MergeError)
  /// The destination file is a Git LFS pointer: the reference was never fetched, so it can be
  /// neither compared nor safely replaced.
  case gitLFSPointer(path: String)
  /// A run recorded the image at the path unchanged instead of archiving it, but the destination
  /// file no longer holds those pixels: the render can only be regenerated.
  case unarchivedImageChanged(path: String)
  /// A failed comparison's render whose reference changed since the run compared them.
  case changedSinceComparison(path: String, compared: String, now: String)
  /// An approved path whose pixels are not the ones reviewed (`IncludeFilter` approvals).
  case changedSinceReview(path: String, reason: String)
  /// `--require-complete` was given and some sources are incomplete.
  case incompleteSources
  /// The review report could not be written: the report writer's error, in words.
  case reportNotWritten(String)
  /// Writing to the destination failed (a full disk, permissions, an immutable folder): the
  /// error names the file, the cause and the fix.
  case writeFailed(MergeError)
  /// `--require-shards` was given and the shards' records do not prove that every planned
  /// test ran exactly once (the sentence names the shards and tests).
  case unprovenShards(String)
  /// Two tests of the merged runs use one reference path: a reference has one owner, so
  /// nothing lands there; each owner is described with its assertion's place.
  case sharedReference(path: String, owners: [String])
  /// The destination's `ReferenceVariants.json` cannot be read or is not valid.
  case invalidVariants(VariantError)
  /// A source rendered on a platform its run's declaration did not name: its renders carry the
  /// base's names but not the base's pixels, so none of it lands.
  case undeclaredPlatform(source: String, platform: String, basePlatform: String?)

  /// What the kinds mean for a run, from the documented exit codes.
  public enum Kind: Sendable, Equatable {
    /// Input refused: exit 3.
    case refusedInput
    /// A write failed: exit 1.
    case writeFailed
  }

  /// The kind of this problem.
  public var kind: Kind {
    switch self {
    case .unlistableSource, .refusedSource, .unsafeDestination, .gitLFSPointer,
      .unarchivedImageChanged, .changedSinceComparison, .changedSinceReview, .incompleteSources,
      .unprovenShards, .sharedReference, .invalidVariants, .undeclaredPlatform:
      .refusedInput
    case .reportNotWritten, .writeFailed: .writeFailed
    }
  }

  /// Whether `--keep-going` lets the merge go on despite this problem: bad sources, stale
  /// approvals and renders compared with another reference can be left out (the plan never
  /// writes their paths); everything else concerns the whole merge.
  public var isSkippable: Bool {
    switch self {
    case .unlistableSource, .refusedSource, .changedSinceReview, .changedSinceComparison,
      .sharedReference:
      true
    default: false
    }
  }

  public var description: String {
    switch self {
    case .unlistableSource(let error), .refusedSource(let error), .unsafeDestination(let error):
      "\(error)"
    case .gitLFSPointer(let path):
      "\(path) is a Git LFS pointer, not an image: run `git lfs pull` to fetch the references, "
        + "then merge again"
    case .unarchivedImageChanged(let path):
      "\(path) changed since the generation run found its render identical to it and so did not "
        + "archive the render; regenerate it (IMAGE_GENERATION_MODE=1 with "
        + "IMAGE_GENERATION_REENCODE=1 archives every image), then merge again"
    case .changedSinceComparison(let path, let compared, let now):
      "\(path) changed since the run compared its render with it (compared with pixels "
        + "\(compared), now \(now)); run the tests again against the current reference, then "
        + "merge their archives"
    case .changedSinceReview(let path, let reason):
      "\(path) changed since review: \(reason); review the new report, export the decisions "
        + "again, then merge"
    case .incompleteSources: "--require-complete refuses the incomplete sources listed above"
    case .reportNotWritten(let error): "could not write the review report: \(error)"
    case .writeFailed(let error):
      switch error {
      // These say what to do themselves: the fix for the folder, or read the sources again.
      case .notWritten, .refusedEntry: "\(error)"
      default: "\(error); files written so far are complete, rerun the same command to finish"
      }
    case .unprovenShards(let reason): reason
    case .sharedReference(let path, let owners):
      "\(path) is the reference of \(owners.count) tests: \(owners.joined(separator: "; ")); "
        + "a reference has one owner, so nothing lands there: give each test's image its own "
        + "name (each case of a parameterized test too, as in `named: \"dot-\\(size)\"`)"
    case .invalidVariants(let error): "\(error)"
    case .undeclaredPlatform(let source, let platform, let basePlatform):
      "\(source) holds renders of \(platform) (undeclared), a platform "
        + "\(ReferenceVariants.fileName) does not declare\(basePlatform.map { " (the base is \($0))" } ?? ""): "
        + "they are no variant's references, so none of them lands; render on the base platform "
        + "or a declared variant's (\(GenerationContract.variantVariable) names the variant a "
        + "machine stands for), or declare \(platform) in \(ReferenceVariants.fileName), then "
        + "regenerate and merge"
    }
  }
}
