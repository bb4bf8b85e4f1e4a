import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
@_exported import TestSupport
import XCTest

@testable import ReferenceImageTesting

/// A temporary package: a folder holding a `Package.swift`, so reference lookup finds its root.
struct TemporaryPackage {
  let root: URL

  init(_ test: XCTestCase) throws {
    root = try makeTemporaryFolder(test).appendingPathComponent("Package")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try Data("// swift-tools-version:6.0\n".utf8).write(
      to: root.appendingPathComponent("Package.swift"))
  }

  /// The path of a test file in the package; the file itself need not exist.
  func testFile(_ relativePath: String = "Tests/ChartTests/BarChartTests.swift") -> String {
    root.appendingPathComponent(relativePath).path
  }

  /// The location of a reference named `name` for the default test file.
  func location(_ name: String) throws -> ReferenceLocation {
    try ReferenceLocation(name: name, filePath: testFile(), environment: [:])
  }
}

/// A private coordinator in `all` mode writing archives into `output`; never `.shared`, whose
/// archive would be written when the test process exits.
func makeCoordinator(output: URL, mode: String = "1") -> ImageCoordinator {
  ImageCoordinator(
    environment: ImageTestEnvironment(environment: [
      "IMAGE_GENERATION_MODE": mode, "IMAGE_GENERATION_OUTPUT": output.path,
    ]))
}

/// A small image whose pixels identify `seed`: a gradient plus a seed-dependent stripe, so no two
/// seeds give the same pixels and the PNG is not trivially flat.
func sampleImage(seed: Int, width: Int = 24, height: Int = 16) throws -> RGBAImage {
  var pixels = [UInt8](repeating: 0, count: width * height * 4)
  for y in 0..<height {
    for x in 0..<width {
      let offset = (y * width + x) * 4
      pixels[offset] = UInt8(truncatingIfNeeded: x * 10 + seed)
      pixels[offset + 1] = UInt8(truncatingIfNeeded: y * 15 + seed >> 8)
      pixels[offset + 2] = (x + y + seed) % 7 == 0 ? 255 : UInt8(truncatingIfNeeded: seed * 31)
      pixels[offset + 3] = 255
    }
  }
  return try RGBAImage(width: width, height: height, pixels: pixels)
}

/// What an archive holds: its manifest and every other entry's bytes by path.
struct ArchiveContents {
  var manifest: ArchiveManifest?
  var files: [String: [UInt8]] = [:]
  var entryCounts: [String: Int] = [:]

  init(_ url: URL) throws {
    var manifestBytes: [UInt8]?
    try ZipReader().forEachEntry(in: .file(url)) { entry in
      entryCounts[entry.path, default: 0] += 1
      if entry.path == ArchiveManifest.entryName {
        manifestBytes = entry.bytes
      } else {
        files[entry.path] = entry.bytes
      }
    }
    if let manifestBytes {
      manifest = try ArchiveManifest.decode(Data(manifestBytes), source: url.path)
    }
  }
}

/// The names in a folder, recursively, relative to it; empty when it does not exist.
func contents(of folder: URL) -> [String] {
  guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
  return enumerator.compactMap { $0 as? String }.sorted()
}

/// The zip archives directly inside a folder.
func archives(in folder: URL) -> [URL] {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
  return names.filter { $0.hasSuffix(".zip") }.sorted().map { folder.appendingPathComponent($0) }
}

/// A counter several threads update under a lock, remembering the largest value it reached.
final class LockedCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  private var maximum = 0

  /// Adds `delta` and returns the new value.
  @discardableResult
  func add(_ delta: Int) -> Int {
    lock.lock()
    defer { lock.unlock() }
    value += delta
    maximum = max(maximum, value)
    return value
  }

  var current: Int {
    lock.lock()
    defer { lock.unlock() }
    return value
  }

  var largest: Int {
    lock.lock()
    defer { lock.unlock() }
    return maximum
  }
}

/// Values collected from several threads.
final class LockedList<Element>: @unchecked Sendable {
  private let lock = NSLock()
  private var elements: [Element] = []

  func append(_ element: Element) {
    lock.lock()
    defer { lock.unlock() }
    elements.append(element)
  }

  var all: [Element] {
    lock.lock()
    defer { lock.unlock() }
    return elements
  }
}
