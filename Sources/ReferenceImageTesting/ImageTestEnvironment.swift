import Foundation
import ReferenceContracts

/// The settings image assertions read from the environment, once per process.
public struct ImageTestEnvironment: Sendable {
  /// The mode from `IMAGE_GENERATION_MODE`.
  public var mode: GenerationMode
  /// `IMAGE_GENERATION_OUTPUT`: where archives go; nil for the default,
  /// `<package root>/.build/reference-images`.
  public var outputFolder: URL?
  /// `IMAGE_DIFF_DIR`: where failure artifacts go; nil for the default,
  /// `<package root>/.build/reference-image-diffs`.
  public var diffFolder: URL?
  /// `IMAGE_GENERATION_SHARD`: set by `reference-shards run` to `I/N`. Then a process that
  /// stored no image still writes an archive (its manifest only), so the tests it ran are
  /// proven to have run.
  public var shard: String?
  /// `IMAGE_GENERATION_REPLICAS`: how many times the run's tests run in all, on purpose, set by
  /// `reference-shards --replicas` and the plugin's `--repeat`; nil for once. Recorded in the
  /// manifest so that `merge-refs` calls renders of one test that differ unstable.
  public var replicas: Int?
  /// `IMAGE_GENERATION_REENCODE`: set (to anything but `0` or nothing), `all` mode encodes and
  /// archives every image, also those whose reference's pixel digest says they are unchanged:
  /// the way to give old references a digest, or to rewrite every file with this encoder.
  public var reencodes = false
  /// `IMAGE_REFERENCE_VARIANT`: the variant to run as, in a package that declares variants
  /// (`ReferenceVariants.json`); nil to follow the platform.
  public var variant: String?
  /// `GITHUB_STEP_SUMMARY`: the CI job summary a run appends its closing notes to (passes
  /// within tolerance); nil outside GitHub Actions.
  public var jobSummary: URL?
  /// The value of `IMAGE_GENERATION_REPLICAS` when it is not a whole number from 1 to 100.
  public var invalidReplicas: String?

  /// The variable naming the archive folder.
  public static let outputVariable = GenerationContract.outputVariable
  /// The variable naming the failure-artifact folder.
  public static let diffVariable = GenerationContract.diffVariable
  /// The variable `reference-shards run` sets for the test processes it starts.
  public static let shardVariable = GenerationContract.shardVariable
  /// The variable that makes `all` mode encode every image, unchanged or not.
  public static let reencodeVariable = GenerationContract.reencodeVariable
  /// The variable runners set when they run every test more than once on purpose.
  public static let replicasVariable = GenerationContract.replicasVariable

  /// Reads the settings.
  /// - Parameter environment: The process environment.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    mode = GenerationMode(environmentValue: environment[GenerationMode.environmentVariable])
    outputFolder = Self.folder(environment[Self.outputVariable])
    diffFolder = Self.folder(environment[Self.diffVariable])
    let reencode = environment[Self.reencodeVariable]?.trimmingCharacters(in: .whitespaces)
    reencodes = !(reencode ?? "").isEmpty && reencode != "0"
    shard = environment[Self.shardVariable].flatMap { $0.isEmpty ? nil : $0 }
    jobSummary = environment["GITHUB_STEP_SUMMARY"].flatMap {
      $0.isEmpty ? nil : URL(fileURLWithPath: $0)
    }
    variant = environment[GenerationContract.variantVariable].flatMap {
      let value = $0.trimmingCharacters(in: .whitespaces)
      return value.isEmpty ? nil : value
    }
    if let value = environment[Self.replicasVariable], !value.isEmpty {
      if let count = Int(value), (1...100).contains(count) {
        replicas = count > 1 ? count : nil
      } else {
        invalidReplicas = value
      }
    }
  }

  /// The archive folder for a package.
  public func archiveFolder(packageRoot: URL) -> URL {
    outputFolder ?? packageRoot.appendingPathComponent(".build/reference-images")
  }

  /// The failure-artifact folder for a package.
  public func artifactFolder(packageRoot: URL) -> URL {
    diffFolder ?? packageRoot.appendingPathComponent(".build/reference-image-diffs")
  }

  private static func folder(_ value: String?) -> URL? {
    guard let value, !value.isEmpty else { return nil }
    let cwd = FileManager.default.currentDirectoryPath
    return value.hasPrefix("/")
      ? URL(fileURLWithPath: value)
      : URL(fileURLWithPath: cwd).appendingPathComponent(value).standardizedFileURL
  }
}
