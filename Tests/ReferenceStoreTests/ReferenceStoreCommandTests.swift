import Foundation
import ReferenceImageCore
import ReferenceStore
import TestSupport
import XCTest

/// `reference-store` run as a user runs it: migrate a tree into a folder store, restore it
/// byte for byte, fill a cache, and find the objects no pointer names.
final class ReferenceStoreCommandTests: XCTestCase {
  private struct Package {
    var root: URL
    var store: FolderStore
    var cache: URL
    var references: URL

    func run(_ arguments: [String], environment extra: [String: String] = [:]) throws
      -> ProcessOutput
    {
      var environment = ProcessInfo.processInfo.environment
      environment["IMAGE_REFERENCE_CACHE"] = cache.path
      environment.merge(extra) { $1 }
      return try runProcess(
        try builtProduct("reference-store").path, arguments, in: root, environment: environment)
    }

    func files() throws -> [String: [UInt8]] {
      var files: [String: [UInt8]] = [:]
      let enumerator = FileManager.default.enumerator(atPath: references.path)
      while let name = enumerator?.nextObject() as? String {
        let url = references.appendingPathComponent(name)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder),
          !isFolder.boolValue
        else { continue }
        files[name] = Array(try Data(contentsOf: url))
      }
      return files
    }
  }

  private func package(images: Int) throws -> Package {
    let folder = try makeTemporaryFolder(self)
    let root = folder.appendingPathComponent("package")
    let references = root.appendingPathComponent("Tests/ChartTests/__References__/BarTests")
    try FileManager.default.createDirectory(at: references, withIntermediateDirectories: true)
    try Data("// swift-tools-version:6.0\n".utf8).write(
      to: root.appendingPathComponent("Package.swift"))
    try Data(#"{"version": 1, "store": "folder", "folder": "../store"}"#.utf8).write(
      to: root.appendingPathComponent(StoreConfiguration.fileName))
    for index in 0..<images {
      let image = try RGBAImage(
        width: 5 + index, height: 4, color: RGBAColor(red: UInt8(index * 20), green: 9, blue: 3))
      // Every other file as another tool wrote it (no pixel digest), which migrates too.
      let png =
        index % 2 == 0
        ? try PNGEncoder().encode(image)
        : try PNGEncoder(setting: .compact).encode(image)
      try Data(png).write(to: references.appendingPathComponent("chart-\(index).png"))
    }
    return Package(
      root: root, store: FolderStore(folder: folder.appendingPathComponent("store")),
      cache: folder.appendingPathComponent("cache"), references: references)
  }

  func testMigrateThenRestore_isByteIdentical() throws {
    let package = try package(images: 6)
    let before = try package.files()

    let dryRun = try package.run(["migrate", "--dry-run", "Tests"])
    XCTAssertEqual(dryRun.status, 0, dryRun.all)
    XCTAssertEqual(dryRun.output, "would migrate 6 of 6 PNG files\n")
    XCTAssertEqual(try package.files(), before, "a dry run changes nothing")

    let migrated = try package.run(["migrate", "Tests"])
    XCTAssertEqual(migrated.status, 0, migrated.all)
    XCTAssertEqual(
      migrated.output, "migrated 6 of 6 PNG files (6 objects uploaded, 0 already stored)\n")
    let pointers = try package.files()
    XCTAssertEqual(Set(pointers.keys), Set(before.keys.map { $0 + ".ref" }))
    XCTAssertEqual(try package.store.list().count, 6)
    for (name, bytes) in pointers {
      let pointer = try ReferencePointer(parsing: bytes, path: name)
      XCTAssertEqual(pointer.object, ObjectKey(of: try XCTUnwrap(before[String(name.dropLast(4))])))
    }

    let restored = try package.run(["restore"])
    XCTAssertEqual(restored.status, 0, restored.all)
    XCTAssertEqual(restored.output, "restored 6 of 6 references\n")
    XCTAssertEqual(try package.files(), before, "every PNG is back, byte for byte")
  }

  func testFetch_fillsTheCache_onceFromTheStore() throws {
    let package = try package(images: 3)
    XCTAssertEqual(try package.run(["migrate", "Tests"]).status, 0)
    let first = try package.run(["fetch"])
    XCTAssertEqual(first.status, 0, first.all)
    XCTAssertEqual(first.output, "3 objects fetched, 0 already in \(package.cache.path)\n")
    let second = try package.run(["fetch", "Tests"])
    XCTAssertEqual(second.output, "0 objects fetched, 3 already in \(package.cache.path)\n")
  }

  func testFetch_ofAMissingObject_failsNamingIt_andTheOthersAreFetched() throws {
    let package = try package(images: 2)
    XCTAssertEqual(try package.run(["migrate", "Tests"]).status, 0)
    let lost = try package.store.list()[0]
    try package.store.delete(lost)
    let fetched = try package.run(["fetch"])
    XCTAssertEqual(fetched.status, 1)
    XCTAssertTrue(fetched.error.contains("holds no object \(lost.hex)"), fetched.error)
    XCTAssertEqual(fetched.output, "1 objects fetched, 0 already in \(package.cache.path)\n")
  }

  func testUnused_listsOnlyObjectsNoPointerNames_andDeletesWhenAsked() throws {
    let package = try package(images: 3)
    XCTAssertEqual(try package.run(["migrate", "Tests"]).status, 0)
    let gone = package.references.appendingPathComponent("chart-1.png.ref")
    let goneKey = try ReferencePointer(
      parsing: Array(try Data(contentsOf: gone)), path: gone.path
    ).object
    try FileManager.default.removeItem(at: gone)
    let listed = try package.run(["unused"])
    XCTAssertEqual(listed.status, 0, listed.all)
    XCTAssertEqual(
      listed.output,
      "\(goneKey.hex)\n1 objects in \(package.store.name) no pointer names; --delete removes them\n"
    )
    XCTAssertEqual(try package.store.list().count, 3, "listing deletes nothing")
    let deleted = try package.run(["unused", "--delete"])
    XCTAssertEqual(deleted.status, 0, deleted.all)
    XCTAssertEqual(try package.store.list().count, 2)
  }

  func testUnused_keepsWhatACommittedRevisionNames() throws {
    let package = try package(images: 2)
    XCTAssertEqual(try package.run(["migrate", "Tests"]).status, 0)
    let git = ["/usr/bin/env", "git", "-C", package.root.path]
    let identity = ["-c", "user.name=Test", "-c", "user.email=test@example.com"]
    for command in [["init", "-q"], ["add", "-A"], identity + ["commit", "-qm", "pointers"]] {
      let result = try runProcess(git[0], Array(git.dropFirst()) + command)
      XCTAssertEqual(result.status, 0, result.all)
    }
    try FileManager.default.removeItem(
      at: package.references.appendingPathComponent("chart-0.png.ref"))
    XCTAssertTrue(
      try package.run(["unused"]).output.hasSuffix(
        "1 objects in \(package.store.name) no pointer names; --delete removes them\n"))
    let kept = try package.run(["unused", "--revision", "HEAD"])
    XCTAssertEqual(kept.status, 0, kept.all)
    XCTAssertEqual(
      kept.output, "0 objects in \(package.store.name) no pointer names; --delete removes them\n")
    let badRevision = try package.run(["unused", "--revision", "no-such-branch"])
    XCTAssertNotEqual(badRevision.status, 0)
    XCTAssertTrue(badRevision.error.contains("no-such-branch"), badRevision.error)
  }

  func testMigrate_withoutAConfiguration_saysWhatToWrite() throws {
    let package = try package(images: 1)
    try FileManager.default.removeItem(
      at: package.root.appendingPathComponent(StoreConfiguration.fileName))
    let result = try package.run(["migrate", "Tests"])
    XCTAssertEqual(result.status, 64)
    XCTAssertTrue(result.error.contains("has no ReferenceStore.json"), result.error)
  }

  func testMigrateAndRestore_throughNginxWebDAV_withCredentialsBoundToItsHost() throws {
    let package = try package(images: 4)
    let before = try package.files()
    let nginx = try LoopbackServer.nginx(self)
    let base = "http://127.0.0.1:\(nginx.port)/private/"
    try Data("{\"version\": 1, \"store\": \"http\", \"url\": \"\(base)\"}".utf8).write(
      to: package.root.appendingPathComponent(StoreConfiguration.fileName))
    let credentials = [
      StoreCredentials.userVariable: "writer", StoreCredentials.passwordVariable: "the-password",
    ]

    // Credentials for another host are never sent: the write fails by name, nothing moves.
    let elsewhere = try package.run(
      ["migrate", "Tests"],
      environment: credentials.merging([StoreCredentials.hostVariable: "store.example.com"]) {
        $1
      })
    XCTAssertEqual(elsewhere.status, 1, elsewhere.all)
    XCTAssertTrue(elsewhere.error.contains("store.example.com"), elsewhere.error)
    XCTAssertFalse(elsewhere.all.contains("the-password"), elsewhere.all)
    XCTAssertEqual(try package.files(), before)

    let bound = credentials.merging([StoreCredentials.hostVariable: "127.0.0.1:\(nginx.port)"]) {
      $1
    }
    let migrated = try package.run(["migrate", "Tests"], environment: bound)
    XCTAssertEqual(migrated.status, 0, migrated.all)
    XCTAssertEqual(
      migrated.output, "migrated 4 of 4 PNG files (4 objects uploaded, 0 already stored)\n")
    XCTAssertEqual(Set(try package.files().keys), Set(before.keys.map { $0 + ".ref" }))

    // Reading needs no credentials: a fresh cache fills from the server, then restores.
    let restored = try package.run(["restore"])
    XCTAssertEqual(restored.status, 0, restored.all)
    XCTAssertEqual(try package.files(), before, "byte for byte, through HTTP")
  }
}
