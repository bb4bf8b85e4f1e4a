import ReferenceArchive

/// Something that went wrong in a merge. Its kind, not its text, decides whether the merge
/// stops and which exit code the run ends with (`MergeSession.Outcome`).
public enum MergeProblem: Sendable, Equatable, CustomStringConvertible {
  /// A SOURCE argument could not even be listed (missing, unreadable folder).
  case unlistableSource(ArchiveError)
  /// A source was refused as corrupt or hostile; `--keep-going` skips it.
  case refusedSource(ArchiveError)
  /// A destination path cannot be written safely (a symbolic link on the way).
  case unsafeDestination(ArchiveError)
  /// The destination file is a Git LFS pointer: the reference was never fetched, so it can be
  /// neither compared nor safely replaced.
  case gitLFSPointer(path: String)
  /// A run recorded the image at the path unchanged instead of archiving it, but the destination
  /// file no longer holds those pixels: the render can only be regenerated.
  case unarchivedImageChanged(path: String)
  /// `--require-complete` was given and some sources are incomplete.
  case incompleteSources
  /// The review report could not be written.
  case reportNotWritten(ArchiveError)
  /// Writing to the destination failed (a full disk, permissions).
  case writeFailed(ArchiveError)
  /// `--require-shards` was given and the shards' records do not prove that every planned
  /// test ran exactly once (the sentence names the shards and tests).
  case unprovenShards(String)

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
      .unarchivedImageChanged, .incompleteSources, .unprovenShards:
      .refusedInput
    case .reportNotWritten, .writeFailed: .writeFailed
    }
  }

  /// Whether `--keep-going` lets the merge go on despite this problem: only bad sources can
  /// be left out; everything else concerns the whole merge.
  public var isSkippable: Bool {
    switch self {
    case .unlistableSource, .refusedSource: true
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
    case .incompleteSources: "--require-complete refuses the incomplete sources listed above"
    case .reportNotWritten(let error): "could not write the review report: \(error)"
    case .writeFailed(let error):
      "\(error); files written so far are complete, rerun the same command to finish"
    case .unprovenShards(let reason): reason
    }
  }
}
