import Foundation
import ReferenceImageCore

/// The one JSON entry of every generation archive: who produced it, how the run ended, and what
/// each image is. Its schema is versioned by `formatVersion` and documented in the ArchiveFormat
/// article (`Sources/ReferenceImageTesting/ReferenceImageTesting.docc/ArchiveFormat.md`).
public struct ArchiveManifest: Codable, Sendable, Equatable {
  /// The schema version this code writes. Version 2 names every test as `swift test list`
  /// prints it (`TestName`); version 1 named the tests that ran, the images' tests and the
  /// references' users by XCTest's own name (`Class.testMethod`, `-[Class testMethod]`) or Swift
  /// Testing's ID, and readers of version 1 refuse version 2 by its number.
  public static let currentFormatVersion = 2
  /// The entry name of the manifest inside an archive and inside a staging folder.
  public static let entryName = "ReferenceImages-manifest.json"

  /// How a run ended.
  public enum Completion: String, Codable, Sendable {
    /// The test bundle or process finished normally and every queued image was written.
    case finished
    /// The run is still going, or it crashed before it could say otherwise.
    case running
    /// The run finished, but some images could not be written (disk full, for example).
    case failed
  }

  /// The process that produced an archive.
  public struct Worker: Codable, Sendable, Equatable {
    /// The host name.
    public var host: String
    /// The process id.
    public var pid: Int32
    /// The operating system and version.
    public var os: String
    /// The Swift compiler version the tests were built with.
    public var swiftVersion: String
    /// CI variables that identify a job or shard (`GITHUB_JOB`, `CI_NODE_INDEX`, …), when set.
    public var ci: [String: String]

    /// Creates a worker record.
    public init(host: String, pid: Int32, os: String, swiftVersion: String, ci: [String: String]) {
      self.host = host
      self.pid = pid
      self.os = os
      self.swiftVersion = swiftVersion
      self.ci = ci
    }

    /// Describes the worker in a few words for messages: "host pid 4242 (shard 3)".
    public var summary: String {
      var text = "\(host) pid \(pid)"
      let shard = [
        "CI_NODE_INDEX", "SHARD", "GITHUB_JOB", "BUILDKITE_PARALLEL_JOB", "IMAGE_GENERATION_SHARD",
      ]
      .compactMap { key in ci[key].map { "\(key)=\($0)" } }
      if !shard.isEmpty { text += " (\(shard.joined(separator: ", ")))" }
      return text
    }
  }

  /// The schema version.
  public var formatVersion: Int
  /// The name and version of the library that wrote the archive.
  public var toolVersion: String
  /// A unique id of the test process.
  public var runID: String
  /// The identity of the run this process belongs to: one `swift test` invocation (every
  /// worker of `swift test --parallel`, both frameworks), or one `reference-shards` plan
  /// (`IMAGE_GENERATION_RUN`). `merge-refs` orders the runs of one host by their processes'
  /// start and lets a later run supersede an earlier run's render of a path. Nil in archives of
  /// older versions: each such archive is a run of its own.
  public var run: String?
  /// The process that produced the archive.
  public var worker: Worker
  /// The generation mode: `all`, `missing` or `failed`, or `verify` for a verify run that kept
  /// the images of its failed comparisons; written as its name.
  public var mode: RunMode
  /// When the run started, ISO 8601.
  public var startedAt: Date
  /// When the run ended; nil while running.
  public var endedAt: Date?
  /// Whether the run finished or was cut short.
  public var completion: Completion
  /// The tests that ran, in the order they started, by `swift test list` name (XCTest's own
  /// name in version 1).
  public var tests: [String]
  /// Every image the run stored, sorted by path.
  public var images: [Image]
  /// Images the run rendered with their reference's pixels and did not archive, sorted by path;
  /// nil when there are none and in archives of older versions, which archived every image.
  public var unchangedImages: [UnchangedImage]?
  /// Reference paths the run compared against (whether or not it stored a new image), so
  /// `merge-refs` can tell orphans from references that are still in use.
  public var verifiedReferences: [String]
  /// Every assertion's use of a reference, in the order they ran; nil in archives of older
  /// versions.
  public var referenceUses: [ReferenceUse]?
  /// The XCTest tests that finished in this process and how long each took, in the order they
  /// finished; nil in archives of older versions and when no XCTest test ran. Under
  /// `reference-shards run` this is the proof that a test ran, also when it stored no image.
  public var testDurations: [TestDuration]?
  /// The XCTest tests that were skipped (`XCTSkip`), by `swift test list` name; nil in archives
  /// of older versions. A skipped test verified nothing, so the references it may own are never
  /// orphans.
  public var skippedTests: [String]?
  /// The XCTest tests that failed (an assertion of any kind, an error thrown), sorted by name;
  /// nil in archives of older versions and when none failed. A failed test may have stopped
  /// before it stored its images, so the references it may own are never orphans; every other
  /// reference is looked at as usual.
  public var failedTests: [FailedTest]?
  /// Which tests the process was asked to run; nil in archives of older versions, which then
  /// prove nothing about tests they did not run.
  public var coverage: Coverage?
  /// How many times the run's tests run in all, on purpose (`IMAGE_GENERATION_REPLICAS`, set by
  /// `reference-shards --replicas` and the plugin's `--repeat`); nil for once. Renders of one
  /// test that differ between such runs are unstable, not a conflict.
  public var replicas: Int?
  /// The variants (`ReferenceVariants`) the run's assertions ran as, sorted: `base`, declared
  /// variants, or an undeclared platform's name followed by ` (undeclared)`. Nil when the
  /// package declares no variants, and in archives of older versions. A scope
  /// (`withReferenceImages(variant:)`) can run some tests as another variant, so a process may
  /// list several; each image's file name says which one it is.
  public var variants: [String]?

  /// Creates a manifest.
  public init(
    formatVersion: Int = currentFormatVersion, toolVersion: String, runID: String,
    run: String? = nil, worker: Worker,
    mode: RunMode, startedAt: Date, endedAt: Date?, completion: Completion, tests: [String],
    images: [Image], unchangedImages: [UnchangedImage]? = nil, verifiedReferences: [String],
    referenceUses: [ReferenceUse]? = nil, testDurations: [TestDuration]? = nil,
    skippedTests: [String]? = nil, failedTests: [FailedTest]? = nil, coverage: Coverage? = nil,
    replicas: Int? = nil, variants: [String]? = nil
  ) {
    self.formatVersion = formatVersion
    self.toolVersion = toolVersion
    self.runID = runID
    self.run = run
    self.worker = worker
    self.mode = mode
    self.startedAt = startedAt
    self.endedAt = endedAt
    self.completion = completion
    self.tests = tests
    self.images = images
    self.unchangedImages = unchangedImages
    self.verifiedReferences = verifiedReferences
    self.referenceUses = referenceUses
    self.testDurations = testDurations
    self.skippedTests = skippedTests
    self.failedTests = failedTests
    self.coverage = coverage
    self.replicas = replicas
    self.variants = variants
  }

  /// The manifest as pretty, key-sorted JSON.
  /// - Returns: UTF-8 JSON bytes.
  /// - Throws: `EncodingError` (not expected for this type).
  public func encoded() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return try encoder.encode(self)
  }

  /// Reads a manifest.
  /// - Parameter data: UTF-8 JSON.
  /// - Returns: The manifest.
  /// - Throws: `ManifestError` for invalid JSON or an unsupported `formatVersion`.
  public static func decode(_ data: Data, source: String) throws(ManifestError) -> ArchiveManifest {
    // A fleet's merge reads tens of thousands of records: the strict reader fills them straight
    // from the bytes, and leaves to `JSONDecoder` every document it does not vouch for, so the
    // value and every error stay `JSONDecoder`'s.
    guard let manifest = strictlyRead(data) else {
      return try decode(ArchiveManifest.self, from: data, source: source)
    }
    return try supported(manifest, source: source)
  }

  /// Reads a manifest as `Part`, a reader of some of its fields (such as the shard evidence's
  /// counts, which need no image's record built), with the same checks as `decode(_:source:)`.
  public static func decode<Part: Decodable & ManifestVersioned>(
    _ part: Part.Type, from data: Data, source: String
  ) throws(ManifestError) -> Part {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let manifest: Part
    do {
      manifest = try decoder.decode(Part.self, from: data)
    } catch {
      throw ManifestError(source: source, reason: "\(error)")
    }
    return try supported(manifest, source: source)
  }

  /// The manifest, if this tool reads its format version.
  static func supported<Part: ManifestVersioned>(
    _ manifest: Part, source: String
  ) throws(ManifestError) -> Part {
    guard manifest.formatVersion <= currentFormatVersion else {
      throw ManifestError(
        source: source,
        reason: "format version \(manifest.formatVersion) is newer than this tool reads "
          + "(\(currentFormatVersion)); update merge-refs")
    }
    return manifest
  }
}

/// A reader of a manifest, whole or in part: it knows the format version it read.
public protocol ManifestVersioned {
  /// The manifest's `formatVersion`.
  var formatVersion: Int { get }
}

extension ArchiveManifest: ManifestVersioned {}
