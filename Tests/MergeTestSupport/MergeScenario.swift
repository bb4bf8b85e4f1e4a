import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import TestSupport
import XCTest

/// The pixels of a scenario's image, declared rather than built: equal declarations give equal
/// pixels, so a test says "the same render" or "three pixels off" in a word.
public enum Pixels: Sendable {
  /// A noisy image decided by its seed (`noiseImage`).
  case seed(Int)
  /// The seed's image with its first `pixels` pixels inverted: a change of a known size.
  case changed(seed: Int, pixels: Int)
  /// Pixels a test made itself.
  case image(RGBAImage)

  /// The image the declaration stands for.
  public func image() throws -> RGBAImage {
    switch self {
    case .seed(let seed): try noiseImage(seed: seed)
    case .changed(let seed, let count): try changingPixels(try noiseImage(seed: seed), count: count)
    case .image(let image): image
    }
  }

  /// The PNG an archive of a scenario holds for these pixels (`ArchiveBuilder.add`'s setting).
  public func png(setting: PNGEncoder.Setting = .fast) throws -> [UInt8] {
    try PNGEncoder(setting: setting).encode(try image())
  }
}

/// A merge told in a few declarative lines: what the package holds, which runs rendered what,
/// and, out, the verdict (`MergeVerdict`: the plan, the problems by kind, the exit status),
/// never printed text, which is the command line's tests' business.
///
///     let merge = try MergeScenario(self)
///     try merge.reference("chart", .seed(1))                       // the package holds it
///     try merge.archive("run.zip", ["chart": .seed(2), "new": .seed(3)])
///     let verdict = merge.run()
///     XCTAssertEqual(verdict.status, .success)
///     XCTAssertEqual(verdict.outcomes, ["chart": .updated, "new": .added])
///
/// A name without a `/` is an image of `folder` (`path(_:_:)`), and the verdict names paths
/// the same way; a name with one is a package-relative path, as it is.
public final class MergeScenario {
  /// The scenario's temporary folder: the sources are written here.
  public let root: URL
  /// The package root the merge writes to.
  public let destination: URL
  /// Where the scenario's short names live.
  public let folder: String
  /// The sources, in the order the merge is given them.
  public var sources: [URL] = []
  /// The options every merge of the scenario runs with.
  public var options = MergeOptions()

  /// A scenario with an empty package whose path holds a space, so nothing may split on one.
  public init(_ test: XCTestCase, folder: String = chartFolder) throws {
    root = try makeTemporaryFolder(test)
    destination = root.appendingPathComponent("package root")
    self.folder = folder
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
  }

  /// The package-relative path of a short name, or of its variant's file.
  public func path(_ name: String, _ variant: String? = nil) -> String {
    name.contains("/")
      ? VariantPath.path(of: name, variant: variant)
      : MergeTestSupport.path(name, variant, in: folder)
  }

  /// The short name of a path: its file name without `.png` inside `folder`, the
  /// package-relative path elsewhere (problems name some files by their absolute path).
  public func name(of path: String) -> String {
    let inPackage = destination.path + "/"
    let path = path.hasPrefix(inPackage) ? String(path.dropFirst(inPackage.count)) : path
    let prefix = folder + "/"
    guard path.hasPrefix(prefix), path.hasSuffix(".png") else { return path }
    let name = path.dropFirst(prefix.count).dropLast(".png".count)
    return name.contains("/") ? path : String(name)
  }

  // MARK: The package

  /// A file of the package, by short name.
  public func url(_ name: String) -> URL { destination.appendingPathComponent(path(name)) }

  /// Puts a reference in the package.
  /// - Parameters:
  ///   - modified: The file's modification time, to show later that a merge left it untouched.
  /// - Returns: Its bytes.
  @discardableResult
  public func reference(
    _ name: String, _ pixels: Pixels, setting: PNGEncoder.Setting = .fast, modified: Date? = nil
  ) throws -> [UInt8] {
    let png = try pixels.png(setting: setting)
    try writeFile(png, to: url(name))
    if let modified {
      try FileManager.default.setAttributes(
        [.modificationDate: modified], ofItemAtPath: url(name).path)
    }
    return png
  }

  /// When the package's file was last modified.
  public func modificationDate(_ name: String) throws -> Date? {
    try FileManager.default.attributesOfItem(atPath: url(name).path)[.modificationDate] as? Date
  }

  /// Puts a file that is no image (a Git LFS pointer, a damaged file) where a reference goes.
  public func reference(_ name: String, bytes: [UInt8]) throws {
    try writeFile(bytes, to: url(name))
  }

  /// The package's file now, nil where there is none.
  public func bytes(_ name: String) -> [UInt8]? {
    (try? Data(contentsOf: url(name))).map(Array.init)
  }

  /// Whether the package holds the file.
  public func exists(_ name: String) -> Bool {
    FileManager.default.fileExists(atPath: url(name).path)
  }

  /// Declares the package's variants (`ReferenceVariants.json`): `linux-arm64 → linux → base`
  /// and `macos`, unless another declaration is given.
  public func declareVariants(
    _ json: String = """
    {"schemaVersion": 1, "base": "linux-x86_64",
     "variants": {"linux-arm64": ["linux"], "linux": [], "macos": []}}
    """
  ) throws {
    try writeFile(
      Array(json.utf8), to: destination.appendingPathComponent(ReferenceVariants.fileName))
  }

  /// Every file, folder and link of the package, to compare before and after (`snapshot`).
  public func package() throws -> [String: TreeNode] { try snapshot(destination) }

  // MARK: Sources

  /// A run's archive, given to the merge after the sources declared before it.
  /// - Parameters:
  ///   - file: Its file name in `root`.
  ///   - images: The images it rendered, by short name, in the order written.
  ///   - host: The worker's host; its pid and CI shard follow.
  ///   - generatedAt: When it finished; `day(1)` unless given.
  ///   - configure: Anything else, such as completion, verified paths, owners, the run or its
  ///     replicas, set on the builder once the images are in.
  /// - Returns: The archive.
  @discardableResult
  public func archive(
    _ file: String, _ images: KeyValuePairs<String, Pixels> = [:], host: String = "ci-host",
    pid: Int32 = 4242, shard: String? = nil, generatedAt: Date = day(1),
    _ configure: (inout ArchiveBuilder) throws -> Void = { _ in }
  ) throws -> URL {
    let builder = try run(images, host: host, pid: pid, shard: shard, generatedAt, configure)
    let url = root.appendingPathComponent(file)
    try builder.write(to: url)
    sources.append(url)
    return url
  }

  /// The same as `archive`, written as a folder: an unpacked archive, or a run's staging
  /// folder.
  @discardableResult
  public func folderSource(
    _ name: String, _ images: KeyValuePairs<String, Pixels> = [:], host: String = "ci-host",
    generatedAt: Date = day(1), _ configure: (inout ArchiveBuilder) throws -> Void = { _ in }
  ) throws -> URL {
    let builder = try run(images, host: host, pid: 4242, shard: nil, generatedAt, configure)
    let url = root.appendingPathComponent(name)
    try builder.writeFolder(to: url)
    sources.append(url)
    return url
  }

  /// A run's builder: its images added by path, then the test's own changes.
  private func run(
    _ images: KeyValuePairs<String, Pixels>, host: String, pid: Int32, shard: String?,
    _ generatedAt: Date, _ configure: (inout ArchiveBuilder) throws -> Void
  ) throws -> ArchiveBuilder {
    var builder = ArchiveBuilder(host: host, pid: pid, shard: shard, generatedAt: generatedAt)
    for (name, pixels) in images { try builder.add(path(name), try pixels.image()) }
    try configure(&builder)
    return builder
  }

  /// The sources and the destination as `merge-refs` takes them, for a test of the command
  /// line on a scenario's package: `MergeRefs.run(["--dry-run"] + merge.arguments)`.
  public var arguments: [String] { sources.map(\.path) + [destination.path] }

  // MARK: The verdict

  /// Plans the merge of every source and writes nothing (`--dry-run`).
  /// - Parameter report: Where to write the review report (`--report`), with `reportWriter`.
  public func plan(report: URL? = nil) -> MergeVerdict {
    conclude(writesNothing: true, report: report)
  }

  /// Merges every source into the package, as `merge-refs SOURCES… ROOT` does.
  /// - Parameter report: Where to write the review report (`--report`), with `reportWriter`.
  public func run(report: URL? = nil) -> MergeVerdict {
    conclude(writesNothing: false, report: report)
  }

  /// What writes the review report, for a test of what the merge hands it:
  /// `ReviewReport.write(_:request:)`, which the merge library does not link.
  public var reportWriter: (@Sendable (MergePlan, ReportRequest) throws -> UnfinishedReport)?

  private func conclude(writesNothing: Bool, report: URL?) -> MergeVerdict {
    var session = MergeSession(
      options: options, destination: destination, writesNothing: writesNothing,
      reportURL: report)
    session.report = reportWriter
    return MergeVerdict(
      conclusion: session.run(sourcePaths: sources.map(\.path)), scenario: self)
  }
}
