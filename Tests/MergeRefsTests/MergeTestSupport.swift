import ArgumentParser
import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import ReferenceReview
@_exported import TestSupport
import XCTest

@testable import merge_refs

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: Folders and fixtures

/// A fresh temporary folder whose name holds a space (so nothing may split paths on spaces),

/// A committed hostile archive from `__Fixtures__/hostile` (see `make_hostile_archives.py`).
func hostileFixture(_ name: String, file: StaticString = #filePath) -> URL {
  URL(fileURLWithPath: "\(file)").deletingLastPathComponent()
    .appendingPathComponent("__Fixtures__/hostile/\(name)")
}

/// Writes a file, creating its folders.
func writeFile(_ bytes: [UInt8], to url: URL) throws {
  try FileManager.default.createDirectory(
    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try Data(bytes).write(to: url)
}

// MARK: The summary

/// Reads `merge-refs --json`'s output, and checks that it is what the decoder reads: the summary
/// decoded and written again is the same text, so the one writer (`writeJSON`) and the
/// `Decodable` conformance agree on every field, and none is lost between them.
func decodedSummary(
  _ output: String, file: StaticString = #filePath, line: UInt = #line
) throws -> MergeSummary {
  let summary = try JSONDecoder().decode(MergeSummary.self, from: Data(output.utf8))
  XCTAssertEqual(
    summary.json(), output.trimmingCharacters(in: .newlines),
    "the summary decoded and written again differs", file: file, line: line)
  return summary
}

// MARK: Images

/// A deterministic noisy image: `seed` decides every pixel, so equal seeds give equal pixels.
func noiseImage(seed: Int, width: Int = 12, height: Int = 8) throws -> RGBAImage {
  var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
  var pixels = [UInt8](repeating: 255, count: width * height * 4)
  for index in pixels.indices where index % 4 != 3 {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    pixels[index] = UInt8(truncatingIfNeeded: state)
  }
  return try RGBAImage(width: width, height: height, pixels: pixels)
}

/// `image` with `count` pixels (along the first row, then further rows) inverted.
func changingPixels(_ image: RGBAImage, count: Int) throws -> RGBAImage {
  var pixels = image.pixels
  for pixel in 0..<count {
    for channel in 0..<3 { pixels[pixel * 4 + channel] ^= 0xFF }
  }
  return try RGBAImage(width: image.width, height: image.height, pixels: pixels)
}

// MARK: Coordinator-like archives

/// Builds archives the way the coordinator does: PNGs from `PNGEncoder`, written with the real
/// `ZipWriter`, and a manifest with the true SHA-256 of each PNG's bytes and pixels.
struct ArchiveBuilder {
  struct Image {
    var path: String
    var png: [UInt8]
    var pixels: RGBAImage
  }

  var worker: ArchiveManifest.Worker
  var startedAt: Date
  var endedAt: Date?
  var completion: ArchiveManifest.Completion = .finished
  var images: [Image] = []
  var verifiedReferences: [String] = []
  /// Images the run recorded unchanged instead of archiving them (`unchangedImages`).
  var unchanged: [ArchiveManifest.UnchangedImage] = []
  /// Manifest records for images the archive does not hold (a damaged archive).
  var recordsWithoutEntries: [Image] = []
  /// Manifest records that describe other content than the entry of their path (tampering).
  var recordedAs: [String: Image] = [:]
  var includesManifest = true
  /// The coordinator writes the manifest first; hand-made archives may have it anywhere.
  var manifestFirst = true
  /// The XCTest tests the manifest says ran, as under `reference-shards run`.
  var testDurations: [ArchiveManifest.TestDuration]?
  /// The XCTest tests the manifest says were skipped.
  var skippedTests: [String] = []
  /// What the run covered: a whole XCTest bundle unless a test says otherwise.
  var coverage: ArchiveManifest.Coverage? = .init(scope: .wholeBundle, arguments: [])
  /// How many times the run's tests ran on purpose (`IMAGE_GENERATION_REPLICAS`).
  var replicas: Int?
  /// The run the archive names (`ArchiveManifest.run`); nil as in older archives.
  var run: String?
  /// The manifest's mode.
  var mode = "all"
  /// For images kept by a failed comparison: what each was compared with, by path.
  var failedComparisons: [String: ArchiveManifest.FailedComparison] = [:]
  /// The comparison each image's test used, by path; none recorded unless given.
  var comparisons: [String: ComparisonRecord] = [:]
  /// The variants the run's assertions ran as (`ArchiveManifest.variants`).
  var variants: [String]?

  /// A builder for a finished run of `host`, generated at `generatedAt`.
  init(host: String = "ci-host", pid: Int32 = 4242, shard: String? = nil, generatedAt: Date) {
    worker = .init(
      host: host, pid: pid, os: "Linux 6.1", swiftVersion: "6.3.1",
      ci: shard.map { ["SHARD": $0] } ?? [:])
    startedAt = generatedAt.addingTimeInterval(-60)
    endedAt = generatedAt
  }

  /// Adds an image encoded with `setting`.
  @discardableResult
  mutating func add(
    _ path: String, _ pixels: RGBAImage, setting: PNGEncoder.Setting = .fast
  ) throws -> [UInt8] {
    let png = try PNGEncoder(setting: setting).encode(pixels)
    images.append(.init(path: path, png: png, pixels: pixels))
    return png
  }

  /// Records `pixels` as unchanged: the run found them in the reference `reference` (the PNG
  /// bytes it read there) and archived nothing; the path counts as verified, as it does in a run.
  /// `comparison` is the one its test uses; none recorded unless given.
  mutating func addUnchanged(
    _ path: String, _ pixels: RGBAImage, reference: [UInt8], comparison: ComparisonRecord? = nil
  ) {
    unchanged.append(
      .init(
        path: path, test: "GeneratedTests.test\(path.count)()", width: pixels.width,
        height: pixels.height, pixelSHA256: SHA256.hex(pixels.pixels),
        pngSHA256: SHA256.hex(reference), comparison: comparison))
    verifiedReferences.append(path)
  }

  func record(_ image: Image) -> ArchiveManifest.Image {
    .init(
      path: image.path, test: "GeneratedTests.test\(image.path.count)()",
      width: image.pixels.width, height: image.pixels.height, byteCount: image.png.count,
      pngSHA256: SHA256.hex(image.png), pixelSHA256: SHA256.hex(image.pixels.pixels),
      failedComparison: failedComparisons[image.path], comparison: comparisons[image.path])
  }

  var manifest: ArchiveManifest {
    ArchiveManifest(
      toolVersion: "ReferenceImages test", runID: UUID().uuidString, run: run, worker: worker,
      mode: RunMode(rawValue: mode),
      startedAt: startedAt, endedAt: completion == .running ? nil : endedAt,
      completion: completion, tests: ["GeneratedTests.testImages()"],
      images: (images.map { recordedAs[$0.path] ?? $0 } + recordsWithoutEntries).map(record)
        .sorted { $0.path < $1.path },
      unchangedImages: unchanged.isEmpty ? nil : unchanged.sorted { $0.path < $1.path },
      verifiedReferences: verifiedReferences, testDurations: testDurations,
      skippedTests: skippedTests, coverage: coverage, replicas: replicas, variants: variants)
  }

  /// Writes the archive as the coordinator does: the manifest (deflated), then the PNGs
  /// (stored).
  func write(to url: URL) throws {
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
  func writeFolder(to url: URL) throws {
    for image in images { try writeFile(image.png, to: url.appendingPathComponent(image.path)) }
    if includesManifest {
      try writeFile(
        Array(try manifest.encoded()), to: url.appendingPathComponent(ArchiveManifest.entryName))
    }
  }
}

/// A date a given number of days into 2024, so "newer" is unambiguous.
func day(_ number: Int) -> Date {
  Date(timeIntervalSince1970: 1_704_067_200 + Double(number) * 86_400)
}

// MARK: Trees

/// What a path in a folder tree is.
enum TreeNode: Equatable {
  case file([UInt8])
  case folder
  case link(String)
}

/// Every file, folder and link below `root` (links not followed), with file bytes.
func snapshot(_ root: URL) throws -> [String: TreeNode] {
  var tree: [String: TreeNode] = [:]
  func walk(_ url: URL, _ relative: String) throws {
    for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
      let child = url.appendingPathComponent(name)
      let path = relative.isEmpty ? name : "\(relative)/\(name)"
      let type = try FileManager.default.attributesOfItem(atPath: child.path)[.type]
      switch type as? FileAttributeType {
      case .typeSymbolicLink:
        tree[path] = .link(try FileManager.default.destinationOfSymbolicLink(atPath: child.path))
      case .typeDirectory:
        tree[path] = .folder
        try walk(child, path)
      default:
        tree[path] = .file(Array(try Data(contentsOf: child)))
      }
    }
  }
  try walk(root, "")
  return tree
}

/// Asserts two trees are equal, naming the paths that differ (not dumping bytes).
func assertTreesEqual(
  _ actual: [String: TreeNode], _ expected: [String: TreeNode], _ message: String = "",
  file: StaticString = #filePath, line: UInt = #line
) {
  let paths = Set(actual.keys).union(expected.keys).sorted()
  let differing = paths.filter { actual[$0] != expected[$0] }.map { path in
    switch (actual[path], expected[path]) {
    case (nil, _): return "\(path) (missing)"
    case (_, nil): return "\(path) (unexpected)"
    default: return "\(path) (different)"
    }
  }
  XCTAssertTrue(
    differing.isEmpty, "trees differ at \(differing.prefix(20)) \(message)", file: file,
    line: line)
}

// MARK: The merge-refs binary

/// The result of running a program.
typealias ProgramResult = ProcessOutput

/// Runs the `merge-refs` built beside this test bundle (the same build folder, whatever
/// `--scratch-path` was used).
enum MergeRefs {
  /// The built binary, beside the test bundle.
  static func binary() throws -> URL { try builtProduct("merge-refs") }

  /// Runs merge-refs with `arguments` (never split on spaces), reading both pipes before
  /// waiting, so a chatty run cannot block on a full pipe.
  @discardableResult
  static func run(_ arguments: [String]) throws -> ProgramResult {
    try runProcess(try binary().path, arguments)
  }

  /// Starts merge-refs and kills it with SIGKILL after `delay` seconds (or lets it finish
  /// first). Output is discarded.
  /// - Returns: Whether the process was killed (false when it had already finished).
  @discardableResult
  static func runAndKill(_ arguments: [String], after delay: TimeInterval) throws -> Bool {
    let process = Process()
    process.executableURL = try binary()
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    usleep(useconds_t(max(0, delay) * 1_000_000))
    let killed = process.isRunning && kill(process.processIdentifier, SIGKILL) == 0
    process.waitUntilExit()
    return killed && process.terminationReason == .uncaughtSignal
  }
}

// MARK: merge-refs in-process

/// Runs `merge-refs` in this process, as swift-argument-parser's own tests do: the command
/// parses the arguments (`parseAsRoot`, which validates them too) and runs, and what it writes
/// to standard output and error is captured, so planner and applier tests need no child
/// process and no test parses flags by hand. The status is the one the binary exits with. The
/// binary itself is tested where the contract is the process (`MergeRefsCommandTests`); the
/// commands the command prints (`--prune`, the review page's) name the test program here.
enum MergeInProcess {
  static func run(_ arguments: [String]) throws -> ProgramResult {
    var status: Int32 = 0
    let (output, error) = try StandardStreams.capture {
      do {
        var command = try merge_refs.MergeRefs.parseAsRoot(arguments)
        try command.run()
      } catch {
        status = merge_refs.MergeRefs.exitCode(for: error).rawValue
        // What `main()` prints: help on standard output, errors on standard error.
        let message = merge_refs.MergeRefs.fullMessage(for: error)
        if !message.isEmpty {
          let stream = status == 0 ? FileHandle.standardOutput : FileHandle.standardError
          stream.write(Data((message + "\n").utf8))
        }
      }
    }
    return ProgramResult(status: status, output: output, error: error)
  }
}

/// This process's standard output and error, sent to files for the length of a closure.
enum StandardStreams {
  /// Runs `body` with descriptors 1 and 2 writing to temporary files (no pipe to fill up).
  /// - Returns: What was written to each.
  static func capture(_ body: () -> Void) throws -> (output: String, error: String) {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("merge-in-process-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let files = [1, 2].map { folder.appendingPathComponent("\($0)") }
    // nil flushes every stream: what was printed before goes where it was meant to.
    fflush(nil)
    let saved = [dup(1), dup(2)]
    for (descriptor, file) in zip([Int32(1), 2], files) {
      let handle = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      guard handle >= 0 else { throw CaptureError(file: file.path) }
      dup2(handle, descriptor)
      close(handle)
    }
    body()
    fflush(nil)
    for (descriptor, original) in zip([Int32(1), 2], saved) {
      dup2(original, descriptor)
      close(original)
    }
    let texts = try files.map { String(decoding: try Data(contentsOf: $0), as: UTF8.self) }
    return (texts[0], texts[1])
  }

  /// A capture file could not be created.
  struct CaptureError: Error {
    let file: String
  }
}

extension FileCalls {
  /// The system's calls with `renameAt` failing with `code` after `successes` renames: moving
  /// a staged file into a reference folder fails as a read-only folder makes it fail for a
  /// user who is not root (`EACCES`), which these tests, run as root, cannot make otherwise.
  static func failingRenames(_ code: Int32, after successes: Int = 0) -> FileCalls {
    var calls = FileCalls.system
    let rename = calls.renameAt
    let budget = Budget(writes: successes)
    calls.renameAt = { fromFolder, from, toFolder, to in
      guard budget.take() else {
        errno = code
        return -1
      }
      return rename(fromFolder, from, toFolder, to)
    }
    return calls
  }
}

/// A count of calls allowed to succeed, taken from any thread.
final class Budget: @unchecked Sendable {
  private let lock = NSLock()
  private var left: Int

  init(writes: Int) { left = writes }

  func take() -> Bool {
    lock.lock()
    defer { lock.unlock() }
    left -= 1
    return left >= 0
  }
}
