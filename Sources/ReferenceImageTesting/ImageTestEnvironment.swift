import Foundation

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

  /// The variable naming the archive folder.
  public static let outputVariable = "IMAGE_GENERATION_OUTPUT"
  /// The variable naming the failure-artifact folder.
  public static let diffVariable = "IMAGE_DIFF_DIR"
  /// The variable `reference-shards run` sets for the test processes it starts.
  public static let shardVariable = "IMAGE_GENERATION_SHARD"

  /// Reads the settings.
  /// - Parameter environment: The process environment.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    mode = GenerationMode(environmentValue: environment[GenerationMode.environmentVariable])
    outputFolder = Self.folder(environment[Self.outputVariable])
    diffFolder = Self.folder(environment[Self.diffVariable])
    shard = environment[Self.shardVariable].flatMap { $0.isEmpty ? nil : $0 }
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
