/// The names the test processes and the tools around them agree on, defined once: the
/// coordinator reads these variables and `reference-shards` sets them; `reference-shards` writes
/// a shard's folder and `merge-refs` reads it. (The `regenerate-references` plugin cannot import
/// a package module; `GenerationContractTests` checks that its copies are these names.)
public enum GenerationContract {
  /// `IMAGE_GENERATION_MODE`: verify (unset, `0`, `never`), `1`/`all`, `missing`, `failed`.
  public static let modeVariable = "IMAGE_GENERATION_MODE"
  /// `IMAGE_GENERATION_OUTPUT`: the folder the archives go to.
  public static let outputVariable = "IMAGE_GENERATION_OUTPUT"
  /// `IMAGE_DIFF_DIR`: the folder of failure artifacts.
  public static let diffVariable = "IMAGE_DIFF_DIR"
  /// `IMAGE_GENERATION_SHARD`: `I/N`, set by `reference-shards run`; a process that stored no
  /// image still writes its manifest, so every test that ran is on record.
  public static let shardVariable = "IMAGE_GENERATION_SHARD"
  /// `IMAGE_GENERATION_REENCODE`: mode `all` encodes every image, unchanged or not.
  public static let reencodeVariable = "IMAGE_GENERATION_REENCODE"
  /// `IMAGE_GENERATION_REPLICAS`: how many times the run's tests run on purpose.
  public static let replicasVariable = "IMAGE_GENERATION_REPLICAS"
  /// `IMAGE_GENERATION_RUN`: the run a test process belongs to, set by `reference-shards` so
  /// that every shard and replica of one plan is one run; unset, a process's run is the
  /// `swift test` invocation that started it.
  public static let runVariable = "IMAGE_GENERATION_RUN"
  /// `IMAGE_REFERENCE_DIR`: a folder inside the package that holds every reference folder.
  public static let referenceFolderVariable = "IMAGE_REFERENCE_DIR"
  /// `IMAGE_REFERENCE_VARIANT`: the variant a test process runs as, in a package that declares
  /// variants (`ReferenceVariants`): a declared variant or `base`; unset, the platform decides.
  public static let variantVariable = "IMAGE_REFERENCE_VARIANT"

  /// The name ending of a run record: the manifest of a test process that made image
  /// assertions but stored no image (a passing verify run), written beside the archives so
  /// that `merge-refs` knows a later run passed and never lands an earlier run's render.
  public static let runRecordSuffix = ".record.json"
  /// How many runs the default output folder keeps: older runs' archives and records are
  /// removed when a run finishes.
  public static let runsKeptInDefaultFolder = 10

  /// The folder of an output folder that holds each running process's staging folder.
  public static let stagingFolderName = ".staging"
  /// The name ending of a file written under a temporary name (`ZipWriter`), skipped by
  /// readers: it is by definition incomplete.
  public static let partialSuffix = ".partial"

  /// The record `reference-shards run` writes in a shard's output folder.
  public static let shardRecordName = "shard.json"
  /// The folder of a shard's output that holds its workers' archives.
  public static let shardArchivesFolderName = "archives"
  /// The folder of a shard's output that holds the Swift Testing event streams.
  public static let shardEventsFolderName = "events"
}
