import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// Kills and crashes real `swift test` runs of the fixture package while they generate images
/// (the fixture's `RENDER_FIXTURE_CRASH` hook, in `BarChartTests.testFlatBars`), then checks what
/// they leave behind with the real `merge-refs`.
final class CrashEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!

  override func setUpWithError() throws {
    fixture = try FixturePackage.built()
    try fixture.reset()
  }

  func testKilledGeneration_stagingFolderMergesAsIncomplete() throws {
    try checkCrashedGeneration(crash: "kill")
  }

  func testFatalErrorDuringGeneration_stagingFolderMergesAsIncomplete() throws {
    try checkCrashedGeneration(crash: "fatal")
  }

  /// The fixture stalls the archive write on its last entry; the test kills the process there.
  func testKilledWhileWritingTheArchive_leavesNoArchiveUnderTheFinalName() throws {
    let output = fixture.archiveFolder
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    let run = try startFixtureTest(
      ["--disable-swift-testing", "--filter", "BarChartTests"],
      environment: [
        "IMAGE_GENERATION_MODE": "1", "RENDER_FIXTURE_CRASH": "stall-archive",
        "IMAGE_GENERATION_OUTPUT": output.path,
      ])
    // Waits for the half-written archive; the watchdog in `RunningProcess` bounds the wait.
    var partial: String?
    while partial == nil && run.isRunning {
      partial = try FileManager.default.contentsOfDirectory(atPath: output.path).first {
        $0.hasSuffix(".partial")
      }
      if partial == nil { usleep(20_000) }
    }
    let name = try XCTUnwrap(
      partial, "the run ended without a partial archive:\n\(run.finish().all)")
    // `.<run name>.zip.<pid>.<random>.partial`, written by the test process itself.
    let pid = try XCTUnwrap(Int32(name.split(separator: ".").reversed()[2]), name)
    XCTAssertEqual(kill(pid, SIGKILL), 0)
    let result = run.finish()
    XCTAssertNotEqual(result.status, 0, result.all)

    let names = try FileManager.default.contentsOfDirectory(atPath: output.path)
    XCTAssertEqual(names.filter { $0.hasSuffix(".zip") }, [], "no archive under a final name")
    // ZipWriter creates the temporary file when it starts and renames it when it finishes, so
    // it is the proof that the kill came mid-write (libarchive buffers, so it may be empty).
    XCTAssertTrue(names.contains(name), "the temporary file stays; it is never mistaken for one")

    // merge-refs given the output folder finds nothing to merge: no zip, the partial skipped.
    let sources = try MergeSource.expand(output.path)
    XCTAssertFalse(
      sources.contains { $0.description.hasSuffix(".partial") }, "\(sources)")
  }

  // MARK: Helpers

  private func checkCrashedGeneration(crash: String) throws {
    let run = try fixture.test(
      ["--disable-swift-testing", "--filter", "BadgeTests|BarChartTests"],
      environment: [
        "IMAGE_GENERATION_MODE": "1", "RENDER_FIXTURE_CRASH": crash,
        // The crash report would spend half a minute symbolicating.
        "SWIFT_BACKTRACE": "enable=no",
      ])
    XCTAssertNotEqual(run.status, 0, "the crashed run must not pass\n\(run.all)")
    XCTAssertEqual(try fixture.archives(), [], "a crashed run writes no archive")
    let stagingRoot = fixture.archiveFolder.appendingPathComponent(".staging")
    let runs = try FileManager.default.contentsOfDirectory(atPath: stagingRoot.path)
    XCTAssertEqual(runs.count, 1, "\(runs)\n\(run.all)")
    let staging = stagingRoot.appendingPathComponent(try XCTUnwrap(runs.first))

    let manifestData = try Data(
      contentsOf: staging.appendingPathComponent(ArchiveManifest.entryName))
    let manifest = try ArchiveManifest.decode(manifestData, source: staging.path)
    XCTAssertEqual(manifest.completion, .running)

    // Every PNG that appeared is whole; temporary files are all that a kill may cut.
    let files = try filesBelow(staging)
    let pngs = files.filter {
      $0.hasSuffix(".png") && !($0 as NSString).lastPathComponent.hasPrefix(".")
    }
    XCTAssertFalse(pngs.isEmpty, "images stored before the crash were staged")
    var staged: [String: Data] = [:]
    for path in pngs {
      let bytes = try Data(contentsOf: staging.appendingPathComponent(path))
      XCTAssertNoThrow(try PNGDecoder().decode(bytes), "\(path) is not a valid PNG")
      staged[path] = bytes
    }
    let temporaries = files.filter {
      ($0 as NSString).lastPathComponent.hasPrefix(FileSystem.temporaryPrefix)
    }
    XCTAssertEqual(
      Set(files), Set(pngs + temporaries + [ArchiveManifest.entryName]), "nothing else is left")

    // In trials the kill never landed inside a PNG write (the pool is quick with these), so a
    // half-written temporary file, as such a kill leaves, is planted beside the staged images.
    let firstPNG = try XCTUnwrap(pngs.first)
    let half = try XCTUnwrap(staged[firstPNG]).prefix(100)
    let planted = ((firstPNG as NSString).deletingLastPathComponent as NSString)
      .appendingPathComponent("\(FileSystem.temporaryPrefix)1-2-cut.png")
    try half.write(to: staging.appendingPathComponent(planted))

    let destination = try temporaryFolder("merged")
    let merge = try runProcess(try mergeRefsBinary().path, [staging.path, destination.path])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    XCTAssertTrue(
      merge.output.contains(
        "warning: \(staging.path)/ is incomplete: the run was cut short (manifest says running)"),
      merge.all)
    XCTAssertTrue(merge.output.contains("orphans were not looked for"), merge.all)
    let landed = try filesBelow(destination)
    XCTAssertEqual(Set(landed), Set(staged.keys), "exactly the whole PNGs land, no temporary file")
    for (path, bytes) in staged {
      XCTAssertEqual(try Data(contentsOf: destination.appendingPathComponent(path)), bytes, path)
    }

    let strictDestination = try temporaryFolder("strict")
    let strict = try runProcess(
      try mergeRefsBinary().path, ["--require-complete", staging.path, strictDestination.path])
    XCTAssertEqual(strict.exitStatus, .refusedInput, strict.all)
    XCTAssertTrue(strict.output.contains("--require-complete refuses"), strict.all)
    XCTAssertEqual(try filesBelow(strictDestination), [], "a refused merge writes nothing")
  }

  /// Every file below a folder, as relative paths.
  private func filesBelow(_ folder: URL) throws -> [String] {
    let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: folder.path))
    return enumerator.compactMap { $0 as? String }.filter { path in
      var isFolder: ObjCBool = false
      let exists = FileManager.default.fileExists(
        atPath: folder.appendingPathComponent(path).path, isDirectory: &isFolder)
      return exists && !isFolder.boolValue
    }.sorted()
  }

  private func temporaryFolder(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "CrashEndToEnd-\(name)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
  }

  /// Starts `swift test --skip-build` in the fixture without waiting for it.
  private func startFixtureTest(_ arguments: [String], environment: [String: String]) throws
    -> RunningProcess
  {
    var merged = ProcessInfo.processInfo.environment
    for key in ["IMAGE_GENERATION_MODE", "IMAGE_GENERATION_OUTPUT", "RENDER_FIXTURE_CRASH"] {
      merged[key] = nil
    }
    merged.merge(environment) { $1 }
    return try RunningProcess(
      "/usr/bin/env", ["swift", "test", "--skip-build"] + arguments, in: fixture.root,
      environment: merged, timeout: 300)
  }
}

/// A child process whose output is collected in the background while the test acts on it;
/// killed after `timeout` seconds so a stuck child fails the test instead of stalling CI.
final class RunningProcess: @unchecked Sendable {
  private let process = Process()
  private let group = DispatchGroup()
  private var outputData = Data()
  private var errorData = Data()
  private let watchdog: DispatchWorkItem

  init(
    _ executable: String, _ arguments: [String], in folder: URL,
    environment: [String: String], timeout: TimeInterval = 600
  ) throws {
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = folder
    process.environment = environment
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Foundation starts the child as a process group leader: killing the group also ends the
    // test process `swift test` started, which would otherwise hold the pipes open for ever.
    watchdog = DispatchWorkItem { [process] in
      kill(-process.processIdentifier, SIGKILL)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    DispatchQueue.global().async(group: group) { [self] in
      outputData = output.fileHandleForReading.readDataToEndOfFile()
    }
    DispatchQueue.global().async(group: group) { [self] in
      errorData = error.fileHandleForReading.readDataToEndOfFile()
    }
  }

  var isRunning: Bool { process.isRunning }

  /// Waits for the process and its output.
  func finish() -> ProcessOutput {
    group.wait()
    process.waitUntilExit()
    watchdog.cancel()
    return ProcessOutput(
      status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
      error: String(decoding: errorData, as: UTF8.self))
  }
}
