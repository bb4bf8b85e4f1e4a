import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// Builds archives the way the coordinator does: PNGs from `PNGEncoder`, written with the real
/// `ZipWriter`, and a manifest with the true SHA-256 of each PNG's bytes and pixels.
public struct ArchiveBuilder {
  /// One image of the archive: its path, its PNG bytes and the pixels they hold.
  public struct Image {
    public var path: String
    public var png: [UInt8]
    public var pixels: RGBAImage

    public init(path: String, png: [UInt8], pixels: RGBAImage) {
      self.path = path
      self.png = png
      self.pixels = pixels
    }
  }

  public var worker: ArchiveManifest.Worker
  public var startedAt: Date
  public var endedAt: Date?
  public var completion: ArchiveManifest.Completion = .finished
  public var images: [Image] = []
  public var verifiedReferences: [String] = []
  /// The assertions' records of the references they used (`referenceUses`); none unless given.
  public var referenceUses: [ArchiveManifest.ReferenceUse]?
  /// Images the run recorded unchanged instead of archiving them (`unchangedImages`).
  public var unchanged: [ArchiveManifest.UnchangedImage] = []
  /// Manifest records for images the archive does not hold (a damaged archive).
  public var recordsWithoutEntries: [Image] = []
  /// Manifest records that describe other content than the entry of their path (tampering).
  public var recordedAs: [String: Image] = [:]
  public var includesManifest = true
  /// The coordinator writes the manifest first; hand-made archives may have it anywhere.
  public var manifestFirst = true
  /// The XCTest tests the manifest says ran, as under `reference-shards run`.
  public var testDurations: [ArchiveManifest.TestDuration]?
  /// The XCTest tests the manifest says were skipped.
  public var skippedTests: [String] = []
  /// The XCTest tests the manifest says failed.
  public var failedTests: [ArchiveManifest.FailedTest]?
  /// What the run covered: a whole XCTest bundle unless a test says otherwise.
  public var coverage: ArchiveManifest.Coverage? = .init(scope: .wholeBundle, arguments: [])
  /// How many times the run's tests ran on purpose (`IMAGE_GENERATION_REPLICAS`).
  public var replicas: Int?
  /// The run the archive names (`ArchiveManifest.run`); nil as in older archives.
  public var run: String?
  /// The manifest's mode.
  public var mode = "all"
  /// For images kept by a failed comparison: what each was compared with, by path.
  public var failedComparisons: [String: ArchiveManifest.FailedComparison] = [:]
  /// The comparison each image's test used, by path; none recorded unless given.
  public var comparisons: [String: ComparisonRecord] = [:]
  /// The variants the run's assertions ran as (`ArchiveManifest.variants`).
  public var variants: [String]?
  /// The test that owns each path, where a test names it; any other path is owned by a test
  /// named after the path's length, so that one path has the same owner in every archive.
  public var owners: [String: String] = [:]

  /// The test the manifest says rendered or verified `path`.
  public func owner(of path: String) -> String {
    owners[path] ?? "GeneratedTests.test\(path.count)()"
  }

  /// A builder for a finished run of `host`, generated at `generatedAt`.
  public init(host: String = "ci-host", pid: Int32 = 4242, shard: String? = nil, generatedAt: Date)
  {
    worker = .init(
      host: host, pid: pid, os: "Linux 6.1", swiftVersion: "6.3.1",
      ci: shard.map { ["SHARD": $0] } ?? [:])
    startedAt = generatedAt.addingTimeInterval(-60)
    endedAt = generatedAt
  }

  /// Adds an image encoded with `setting`.
  @discardableResult
  public mutating func add(
    _ path: String, _ pixels: RGBAImage, setting: PNGEncoder.Setting = .fast
  ) throws -> [UInt8] {
    let png = try PNGEncoder(setting: setting).encode(pixels)
    images.append(.init(path: path, png: png, pixels: pixels))
    return png
  }

  /// Records `pixels` as unchanged: the run found them in the reference `reference` (the PNG
  /// bytes it read there) and archived nothing; the path counts as verified, as it does in a run.
  /// `comparison` is the one its test uses; none recorded unless given.
  public mutating func addUnchanged(
    _ path: String, _ pixels: RGBAImage, reference: [UInt8], comparison: ComparisonRecord? = nil
  ) {
    unchanged.append(
      .init(
        path: path, test: owner(of: path), width: pixels.width,
        height: pixels.height, pixelSHA256: SHA256Digest(of: pixels.pixels),
        pngSHA256: SHA256Digest(of: reference), comparison: comparison))
    verifiedReferences.append(path)
  }

  public func record(_ image: Image) -> ArchiveManifest.Image {
    .init(
      path: image.path, test: owner(of: image.path),
      width: image.pixels.width, height: image.pixels.height, byteCount: image.png.count,
      pngSHA256: SHA256Digest(of: image.png), pixelSHA256: SHA256Digest(of: image.pixels.pixels),
      failedComparison: failedComparisons[image.path], comparison: comparisons[image.path])
  }

  public var manifest: ArchiveManifest {
    ArchiveManifest(
      toolVersion: "ReferenceImages test", runID: UUID().uuidString, run: run, worker: worker,
      mode: RunMode(rawValue: mode),
      startedAt: startedAt, endedAt: completion == .running ? nil : endedAt,
      completion: completion, tests: ["GeneratedTests.testImages()"],
      images: (images.map { recordedAs[$0.path] ?? $0 } + recordsWithoutEntries).map(record)
        .sorted { $0.path < $1.path },
      unchangedImages: unchanged.isEmpty ? nil : unchanged.sorted { $0.path < $1.path },
      verifiedReferences: verifiedReferences, referenceUses: referenceUses,
      testDurations: testDurations,
      skippedTests: skippedTests, failedTests: failedTests, coverage: coverage, replicas: replicas,
      variants: variants)
  }

  /// Writes the archive as the coordinator does: the manifest (deflated), then the PNGs
  /// (stored).
  public func write(to url: URL) throws {
    var entries = images.map { ZipWriter.Entry(path: $0.path, contents: .bytes($0.png)) }
    if includesManifest {
      let entry = ZipWriter.Entry(
        path: ArchiveManifest.entryName, contents: .bytes(Array(try manifest.encoded())))
      entries.insert(entry, at: manifestFirst ? 0 : entries.count)
    }
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try ZipWriter().write(entries, to: url, modificationDate: endedAt ?? startedAt)
  }

  /// Writes the same content as a folder: an unpacked archive, or a staging folder.
  public func writeFolder(to url: URL) throws {
    for image in images { try writeFile(image.png, to: url.appendingPathComponent(image.path)) }
    if includesManifest {
      try writeFile(
        Array(try manifest.encoded()), to: url.appendingPathComponent(ArchiveManifest.entryName))
    }
  }
}

/// A date a given number of days into 2024, so "newer" is unambiguous.
public func day(_ number: Int) -> Date {
  Date(timeIntervalSince1970: 1_704_067_200 + Double(number) * 86_400)
}
