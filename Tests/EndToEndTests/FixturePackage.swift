import Foundation
import ReferenceArchive
import ReferenceContracts
@_exported import TestSupport
import XCTest

/// A copy of a package in `__Fixtures__` (`RenderFixture` unless named) in a temporary folder,
/// depending on this checkout, on which the tests run real `swift test`. Each is built once per
/// process and reset between tests.
final class FixturePackage: @unchecked Sendable {
  let root: URL
  let archiveFolder: URL
  let diffFolder: URL

  /// The shared, built copies by fixture name, or the reason one could not be built.
  nonisolated(unsafe) static var shared: [String: Result<FixturePackage, Error>] = [:]
  private static let lock = NSLock()

  static func built(_ name: String = "RenderFixture") throws -> FixturePackage {
    lock.lock()
    defer { lock.unlock() }
    if let built = shared[name] { return try built.get() }
    let result = Result { try FixturePackage(name: name) }
    shared[name] = result
    return try result.get()
  }

  /// The checkout's root folder (three levels above this file).
  static let checkout = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  private init(name: String) throws {
    let source = Self.checkout.appendingPathComponent("Tests/EndToEndTests/__Fixtures__/\(name)")
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(name)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.copyItem(at: source, to: root)
    let manifest = root.appendingPathComponent("Package.swift")
    let text = try String(contentsOf: manifest, encoding: .utf8)
      .replacingOccurrences(of: "REFERENCE_IMAGES_ROOT", with: Self.checkout.path)
    try text.write(to: manifest, atomically: true, encoding: .utf8)
    archiveFolder = root.appendingPathComponent(".build/reference-images")
    diffFolder = root.appendingPathComponent(".build/reference-image-diffs")
    let build = try swift(["build", "--build-tests"], environment: [:])
    guard build.status == 0 else {
      throw FixtureError(message: "building the fixture failed:\n\(build.output)\(build.error)")
    }
  }

  /// Removes references, archives and artifacts so each test starts from a clean package.
  func reset() throws {
    for target in ["BadgeTests", "ChartTests", "SwiftTestingTests"] {
      try? FileManager.default.removeItem(
        at: root.appendingPathComponent("Tests/\(target)/__References__"))
    }
    try? FileManager.default.removeItem(at: archiveFolder)
    try? FileManager.default.removeItem(at: diffFolder)
    try? FileManager.default.removeItem(at: root.appendingPathComponent("ReferenceVariants.json"))
    try? FileManager.default.removeItem(at: root.appendingPathComponent("ReferenceStore.json"))
    // Review pages other tests wrote: merge-refs refuses to replace a folder that is not a report.
    try? FileManager.default.removeItem(at: root.appendingPathComponent("review"))
  }

  /// Runs `swift test --skip-build` with extra arguments and environment.
  func test(_ arguments: [String], environment: [String: String]) throws -> ProcessOutput {
    try swift(["test", "--skip-build"] + arguments, environment: environment)
  }

  /// The plugin's command, as README prints it: `swift package` and these words, then the
  /// plugin's own arguments.
  static let pluginCommand = [
    "swift", "package", "--allow-writing-to-package-directory", "regenerate-references",
  ]

  /// Runs the plugin (`swift package --allow-writing-to-package-directory
  /// regenerate-references`) with its arguments and extra environment.
  func plugin(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessOutput {
    try run(Self.pluginCommand + arguments, environment: environment)
  }

  /// Runs a command line with `sh -c` in the package root, as a person would type it.
  func shell(_ line: String, environment: [String: String]) throws -> ProcessOutput {
    try run(["sh", "-c", line], environment: environment)
  }

  /// The archives in the output folder, sorted by name (which is by start time).
  func archives() throws -> [URL] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: archiveFolder.path)) ?? []
    return names.filter { $0.hasSuffix(".zip") }.sorted().map {
      archiveFolder.appendingPathComponent($0)
    }
  }

  /// Unpacks every archive into the package with plain `unzip`, the manifest left out, and
  /// removes it: references recorded as a user without merge-refs would land them.
  func unpackArchives(file: StaticString = #filePath, line: UInt = #line) throws {
    for archive in try archives() {
      let unzip = try runProcess(
        "/usr/bin/unzip",
        ["-o", "-q", archive.path, "-x", ArchiveManifest.entryName, "-d", root.path])
      XCTAssertEqual(unzip.status, 0, unzip.all, file: file, line: line)
      try FileManager.default.removeItem(at: archive)
    }
  }

  private func swift(_ arguments: [String], environment: [String: String]) throws
    -> ProcessOutput
  {
    try run(["swift"] + arguments, environment: environment)
  }

  /// Runs a program in the package root without the generation variables of this process.
  func run(_ arguments: [String], environment: [String: String]) throws
    -> ProcessOutput
  {
    var merged = ProcessInfo.processInfo.environment
    for key in [
      "IMAGE_GENERATION_MODE", "IMAGE_GENERATION_OUTPUT", "IMAGE_DIFF_DIR",
      "IMAGE_REFERENCE_DIR", "RENDER_FIXTURE_CHANGE", "RENDER_FIXTURE_CRASH",
      "RENDER_FIXTURE_UNSTUBBED", "RENDER_FIXTURE_SCOPED", "RENDER_FIXTURE_SHARED",
      "IMAGE_GENERATION_SHARD", "IMAGE_GENERATION_RUN", "IMAGE_REFERENCE_VARIANT",
      "REFERENCE_SHARD_INDEX", "REFERENCE_SHARD_COUNT", "CASE_FIXTURE_CHANGE",
      "CASE_FIXTURE_SHARED", "IMAGE_REFERENCE_CACHE",
    ] {
      merged[key] = nil
    }
    merged.merge(environment) { $1 }
    return try runProcess("/usr/bin/env", arguments, in: root, environment: merged)
  }
}

struct FixtureError: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}

/// A PATH whose `swift` runs this checkout's built merge-refs for `swift run merge-refs …`
/// (the same code the package's product builds) and the real `swift` otherwise.
func swiftShimPath() throws -> String {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "swift-shim-\(UUID().uuidString.prefix(8))")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let real = try XCTUnwrap(
    ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
      .map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) })
  let script = """
    #!/bin/sh
    if [ "$1" = run ] && [ "$2" = merge-refs ]; then
      shift 2
      exec '\(try mergeRefsBinary().path)' "$@"
    fi
    exec '\(real)' "$@"
    """
  let shim = folder.appendingPathComponent("swift")
  try script.write(to: shim, atomically: true, encoding: .utf8)
  try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: shim.path)
  return folder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
}

/// The manifest of an archive a fixture's run wrote.
func manifest(ofArchive archive: URL) throws -> ArchiveManifest {
  var manifest: ArchiveManifest?
  try ZipReader().forEachEntry(in: .file(archive), failure: { $0 }) {
    (entry) throws(any Error) in
    if entry.path == ArchiveManifest.entryName {
      manifest = try ArchiveManifest.decode(Data(entry.bytes), source: archive.path)
    }
  }
  return try XCTUnwrap(manifest, "\(archive.path) holds no manifest")
}
