import Foundation
import ReferenceArchive
import ReferenceImageCore
import XCTest

/// A full disk under generation and under `merge-refs`, on a small tmpfs filled to the last
/// byte. Mounting needs root; elsewhere the tests are skipped with the reason.
final class DiskFullEndToEndTests: XCTestCase {
  func testGenerationOnAFullDisk_reportsThePathAndFinishes() throws {
    let fixture = try FixturePackage.built()
    try fixture.reset()
    let disk = try SmallDisk(sizeKiB: 1024, test: self)
    let output = disk.root.appendingPathComponent("reference-images")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    try disk.fill()

    let run = try fixture.test(
      ["--disable-swift-testing", "--filter", "BarChartTests"],
      environment: ["IMAGE_GENERATION_MODE": "1", "IMAGE_GENERATION_OUTPUT": output.path])
    XCTAssertNotEqual(run.status, 0, "a run that could not store its images must fail\n\(run.all)")
    XCTAssertTrue(run.all.contains("No space left on device"), run.all)
    XCTAssertTrue(run.all.contains(output.path), "the error names the path\n\(run.all)")
    XCTAssertFalse(run.all.contains("signal"), "the test process must not crash\n\(run.all)")
    let archives = try FileManager.default.contentsOfDirectory(atPath: output.path).filter {
      $0.hasSuffix(".zip")
    }
    XCTAssertEqual(archives, [], "no archive, whole or not, under a final name")
  }

  func testMergeIntoAFullDisk_exitsOneKeepingEveryReference_thenConverges() throws {
    let disk = try SmallDisk(sizeKiB: 2048, test: self)
    let package = disk.root.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "DiskFull-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let paths = (0..<6).map { "Tests/ChartTests/__References__/ChartTests/chart-\($0).png" }
    let first = scratch.appendingPathComponent("first.zip")
    let second = scratch.appendingPathComponent("second.zip")
    try ZipWriter().write(
      try paths.enumerated().map { .init(path: $1, contents: .bytes(try noisePNG(seed: $0))) },
      to: first)
    try ZipWriter().write(
      try (paths + ["Tests/ChartTests/__References__/ChartTests/new.png"]).enumerated().map {
        .init(path: $1, contents: .bytes(try noisePNG(seed: 100 + $0)))
      }, to: second)
    let mergeRefs = try mergeRefsBinary().path

    let initial = try runProcess(mergeRefs, [first.path, package.path])
    XCTAssertEqual(initial.exitStatus, .success, initial.all)
    let before = try snapshot(package)
    XCTAssertEqual(before.keys.sorted(), paths.sorted())

    try disk.fill()
    let full = try runProcess(mergeRefs, [second.path, package.path])
    XCTAssertEqual(full.exitStatus, .writeFailed, full.all)
    XCTAssertTrue(full.output.contains(": no space left on device ("), full.all)
    XCTAssertTrue(full.output.contains(package.path), "the error names the path\n\(full.all)")
    XCTAssertTrue(
      full.output.contains("free space on the device that holds \(package.path), then rerun"),
      full.all)
    // Nothing fitted: the summary claims no file.
    XCTAssertTrue(full.output.contains("0 added, 0 updated, 0 unchanged"), full.all)
    XCTAssertTrue(full.output.contains(", 7 not written (nothing written)"), full.all)
    XCTAssertEqual(try snapshot(package), before, "every reference intact, no temporary file")

    try disk.free()
    let rerun = try runProcess(mergeRefs, [second.path, package.path])
    XCTAssertEqual(rerun.exitStatus, .success, rerun.all)
    let again = try runProcess(mergeRefs, [second.path, package.path])
    XCTAssertEqual(again.exitStatus, .success, again.all)
    XCTAssertTrue(
      again.output.contains("0 added, 0 updated, 7 unchanged"), "converged\n\(again.all)")
  }

  // MARK: Helpers

  /// Every file below a folder (hidden ones included) with its bytes.
  private func snapshot(_ folder: URL) throws -> [String: Data] {
    let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: folder.path))
    var files: [String: Data] = [:]
    for case let path as String in enumerator {
      let url = folder.appendingPathComponent(path)
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder),
        !isFolder.boolValue
      {
        files[path] = try Data(contentsOf: url)
      }
    }
    return files
  }

  /// A 96 × 96 noise image: about 37 KB of PNG, so a few fill a small disk.
  private func noisePNG(seed: Int) throws -> [UInt8] {
    var state = UInt64(seed + 1) &* 0x9E37_79B9_7F4A_7C15
    let pixels = (0..<(96 * 96 * 4)).map { _ -> UInt8 in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 56)
    }
    return try PNGEncoder().encode(RGBAImage(width: 96, height: 96, pixels: pixels))
  }
}

/// A tmpfs of a few hundred KiB, unmounted when the test ends, that can be filled to the last
/// byte and freed again.
final class SmallDisk {
  let root: URL
  private let filler: URL

  init(sizeKiB: Int, test: XCTestCase) throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "SmallDisk-\(UUID().uuidString.prefix(8))")
    filler = root.appendingPathComponent(".filler")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let mount = try runProcess(
      "/usr/bin/env", ["mount", "-t", "tmpfs", "-o", "size=\(sizeKiB)k", "tmpfs", root.path])
    guard mount.status == 0 else {
      try? FileManager.default.removeItem(at: root)
      throw XCTSkip("mounting a small tmpfs needs root (CAP_SYS_ADMIN): \(mount.all)")
    }
    test.addTeardownBlock { [root] in
      _ = try? runProcess("/usr/bin/env", ["umount", root.path])
      try? FileManager.default.removeItem(at: root)
    }
  }

  /// Writes a file until the disk refuses another byte.
  func fill() throws {
    let descriptor = open(filler.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard descriptor >= 0 else { throw FixtureError(message: "cannot create \(filler.path)") }
    defer { close(descriptor) }
    let chunk = [UInt8](repeating: 0xA5, count: 4096)
    var size = chunk.count
    while size > 0 {
      let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, size) }
      if written < 0 {
        guard errno == ENOSPC else {
          throw FixtureError(message: "filling \(root.path): \(String(cString: strerror(errno)))")
        }
        size /= 2
      }
    }
  }

  /// Removes the filler.
  func free() throws {
    try FileManager.default.removeItem(at: filler)
  }
}
