import Foundation
import ReferenceContracts
import ReferenceStore
import XCTest

/// The fixture package with its references in a folder store: real `swift test` and
/// `merge-refs` runs land pointers, a verify whose renders match passes with the store gone and
/// the cache empty, and a failing one fetches exactly the objects of the failing references.
final class StoreEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!
  private var store: URL!
  private var cache: URL!

  /// The references `RENDER_FIXTURE_CHANGE=bars` changes.
  private let barReferences = [
    "Tests/ChartTests/__References__/BarChartTests/bars.png",
    "Tests/ChartTests/__References__/BarChartTests/flat-bars.png",
    "Tests/SwiftTestingTests/__References__/SwiftTestingBadges/bars.png",
  ]

  override func setUpWithError() throws {
    fixture = try FixturePackage.built()
    try fixture.reset()
    let folder = try makeTemporaryFolder(self)
    store = folder.appendingPathComponent("store")
    cache = folder.appendingPathComponent("cache")
    let configuration = "{\"version\": 1, \"store\": \"folder\", \"folder\": \"\(store.path)\"}"
    try Data(configuration.utf8).write(
      to: fixture.root.appendingPathComponent(StoreConfiguration.fileName))
    addTeardownBlock { [fixture] in try fixture?.reset() }
  }

  private func generateAndMerge(_ environment: [String: String] = [:]) throws -> ProcessOutput {
    try? FileManager.default.removeItem(at: fixture.archiveFolder)
    let run = try fixture.test(
      [], environment: environment.merging(["IMAGE_GENERATION_MODE": "1"]) { $1 })
    XCTAssertEqual(run.status, 0, run.all)
    let merge = try fixture.run(
      [try builtProduct("merge-refs").path] + (try fixture.archives()).map(\.path) + ["."],
      environment: [:])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    return merge
  }

  /// The files under the fixture's reference folders, by package-relative path.
  private func referenceFiles() -> [String] {
    var files: [String] = []
    let tests = fixture.root.appendingPathComponent("Tests")
    let enumerator = FileManager.default.enumerator(atPath: tests.path)
    while let path = enumerator?.nextObject() as? String {
      if path.contains("__References__/"), path.hasSuffix(".png") || path.hasSuffix(".ref") {
        files.append("Tests/" + path)
      }
    }
    return files.sorted()
  }

  private func cachedObjects() throws -> Set<ObjectKey> {
    Set(try FolderStore(folder: cache).list())
  }

  private func pointer(_ path: String) throws -> ReferencePointer {
    let file = fixture.root.appendingPathComponent(path + ReferencePointer.pathExtension)
    return try ReferencePointer(parsing: Array(try Data(contentsOf: file)), path: file.path)
  }

  func testLandedPointers_verifyWithoutTheStore_andAFailureFetchesOnlyItsObjects() throws {
    let landed = try generateAndMerge()
    XCTAssertTrue(
      landed.output.contains("12 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans"),
      landed.all)
    XCTAssertTrue(
      landed.output.contains(
        "store: 12 objects uploaded to \(store.path); the references are pointers (.png.ref)"),
      landed.all)
    let files = referenceFiles()
    XCTAssertEqual(files.count, 12)
    XCTAssertTrue(files.allSatisfy { $0.hasSuffix(".png.ref") }, "\(files)")
    XCTAssertEqual(try FolderStore(folder: store).list().count, 12)

    // The store moved away and the cache empty: renders that match their pointers pass.
    let away = store.deletingLastPathComponent().appendingPathComponent("store-away")
    try FileManager.default.moveItem(at: store, to: away)
    let offline = try fixture.test([], environment: ["IMAGE_REFERENCE_CACHE": cache.path])
    XCTAssertEqual(offline.status, 0, offline.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: cache.path), "nothing was fetched")

    // A change with the store gone fails by name: it never passes.
    let change = ["RENDER_FIXTURE_CHANGE": "bars", "IMAGE_REFERENCE_CACHE": cache.path]
    let unreachable = try fixture.test(["--disable-swift-testing"], environment: change)
    XCTAssertNotEqual(unreachable.status, 0, unreachable.all)
    let bars = try pointer(barReferences[0])
    XCTAssertTrue(unreachable.all.contains("holds no object \(bars.object.hex)"), unreachable.all)
    XCTAssertTrue(unreachable.all.contains("swift run reference-store fetch"), unreachable.all)

    // With the store back and the cache cold, only the failing references' objects are read.
    try FileManager.default.moveItem(at: away, to: store)
    let failing = try fixture.test([], environment: change)
    XCTAssertNotEqual(failing.status, 0, failing.all)
    XCTAssertTrue(failing.all.contains("Test Case 'BarChartTests.testBars' failed"), failing.all)
    XCTAssertTrue(failing.all.contains("differ"), failing.all)
    XCTAssertEqual(try cachedObjects(), Set(try barReferences.map { try pointer($0).object }))
  }

  func testRegeneration_updatesOnlyTheChangedPointers() throws {
    _ = try generateAndMerge()
    let before = try referenceFiles().map {
      try Data(contentsOf: fixture.root.appendingPathComponent($0))
    }
    let rerun = try generateAndMerge()
    XCTAssertTrue(
      rerun.output.contains("0 added, 0 updated, 12 unchanged, 0 conflicts, 0 orphans"),
      rerun.all)
    XCTAssertEqual(
      try referenceFiles().map { try Data(contentsOf: fixture.root.appendingPathComponent($0)) },
      before, "nothing rewritten")
    // The plugin lands through the same merge: pointers, objects uploaded first.
    let changed = try fixture.shell(
      "swift package --allow-writing-to-package-directory regenerate-references",
      environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertEqual(changed.exitStatus, .success, changed.all)
    XCTAssertTrue(
      changed.output.contains("0 added, 3 updated, 9 unchanged, 0 conflicts, 0 orphans"),
      changed.all)
    XCTAssertTrue(changed.output.contains("store: 3 objects uploaded to"), changed.all)
    XCTAssertTrue(referenceFiles().allSatisfy { $0.hasSuffix(".png.ref") })
    XCTAssertEqual(try FolderStore(folder: store).list().count, 15, "three new objects")
    let verify = try fixture.test(
      [], environment: ["RENDER_FIXTURE_CHANGE": "bars", "IMAGE_REFERENCE_CACHE": cache.path])
    XCTAssertEqual(verify.status, 0, verify.all)
  }

  /// The commands of a fenced `sh` block of the article, as written, comments dropped.
  private func articleCommands(startingWith firstLine: String) throws -> [String] {
    let article = try String(
      contentsOf: FixturePackage.checkout.appendingPathComponent(
        "Sources/ReferenceImageTesting/ReferenceImageTesting.docc/"
          + "ReferencesOutsideTheRepository.md"), encoding: .utf8)
    let start = try XCTUnwrap(article.range(of: "```sh\n" + firstLine), "the article's block")
    let body = article[start.upperBound...]
    let end = try XCTUnwrap(body.range(of: "\n```"))
    return (firstLine + body[..<end.lowerBound]).split(separator: "\n").map {
      String($0.split(separator: "#", maxSplits: 1)[0]).trimmingCharacters(in: .whitespaces)
    }
  }

  func testArticleCommands_migrateFetchRestoreAndHousekeeping_asWritten() throws {
    let configuration = fixture.root.appendingPathComponent(StoreConfiguration.fileName)
    let configured = try Data(contentsOf: configuration)
    try FileManager.default.removeItem(at: configuration)
    XCTAssertTrue(try generateAndMerge().output.contains("12 added"))
    let pngs = referenceFiles()
    XCTAssertEqual(pngs.count, 12)
    XCTAssertTrue(pngs.allSatisfy { $0.hasSuffix(".png") })
    let before = try pngs.map { try Data(contentsOf: fixture.root.appendingPathComponent($0)) }
    try configured.write(to: configuration)

    let commands = try articleCommands(startingWith: "swift run reference-store migrate --dry-run")
    XCTAssertEqual(
      commands,
      [
        "swift run reference-store migrate --dry-run Tests",
        "swift run reference-store migrate Tests", "swift run reference-store fetch",
        "swift run reference-store restore",
      ])
    let environment = ["IMAGE_REFERENCE_CACHE": cache.path]
    let dryRun = try fixture.shell(commands[0], environment: environment)
    XCTAssertEqual(dryRun.status, 0, dryRun.all)
    XCTAssertTrue(dryRun.output.contains("would migrate 12 of 12 PNG files"), dryRun.all)
    XCTAssertEqual(referenceFiles(), pngs)

    let migrate = try fixture.shell(commands[1], environment: environment)
    XCTAssertEqual(migrate.status, 0, migrate.all)
    XCTAssertTrue(
      migrate.output.contains("migrated 12 of 12 PNG files (12 objects uploaded"), migrate.all)
    XCTAssertEqual(referenceFiles(), pngs.map { $0 + ".ref" })
    let verify = try fixture.test([], environment: environment)
    XCTAssertEqual(verify.status, 0, verify.all)

    let fetch = try fixture.shell(commands[2], environment: environment)
    XCTAssertEqual(fetch.status, 0, fetch.all)
    XCTAssertTrue(fetch.output.contains("12 objects fetched, 0 already in"), fetch.all)
    let ciFetch = try fixture.shell(
      "IMAGE_REFERENCE_CACHE=$PWD/.reference-cache swift run reference-store fetch",
      environment: [:])
    XCTAssertEqual(ciFetch.status, 0, ciFetch.all)
    XCTAssertEqual(
      try FolderStore(folder: fixture.root.appendingPathComponent(".reference-cache")).list()
        .count, 12)
    try? FileManager.default.removeItem(at: fixture.root.appendingPathComponent(".reference-cache"))

    // Housekeeping as the article writes it, in a repository with those revisions.
    let git = { (arguments: [String]) throws -> ProcessOutput in
      try self.fixture.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com"] + arguments,
        environment: [:])
    }
    addTeardownBlock { [fixture] in
      try? FileManager.default.removeItem(at: fixture!.root.appendingPathComponent(".git"))
    }
    for step in [
      ["init", "-q"], ["add", "-A", "Tests", StoreConfiguration.fileName],
      ["commit", "-qm", "pointers"], ["tag", "v1.0"],
      ["update-ref", "refs/remotes/origin/main", "HEAD"],
    ] {
      let result = try git(step)
      XCTAssertEqual(result.status, 0, result.all)
    }
    let housekeeping = try articleCommands(startingWith: "swift run reference-store unused")
    XCTAssertEqual(
      housekeeping, ["swift run reference-store unused --revision origin/main --revision v1.0"])
    let unused = try fixture.shell(housekeeping[0], environment: environment)
    XCTAssertEqual(unused.status, 0, unused.all)
    XCTAssertTrue(unused.output.contains("0 objects in \(store.path) no pointer names"), unused.all)

    let restore = try fixture.shell(commands[3], environment: environment)
    XCTAssertEqual(restore.status, 0, restore.all)
    XCTAssertTrue(restore.output.contains("restored 12 of 12 references"), restore.all)
    XCTAssertEqual(referenceFiles(), pngs)
    XCTAssertEqual(
      try pngs.map { try Data(contentsOf: fixture.root.appendingPathComponent($0)) }, before,
      "byte for byte")
  }
}
