import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import TestSupport
import XCTest

/// A small PNG whose shade tells it apart.
func samplePNG(_ shade: UInt8, width: Int = 8, height: Int = 6) throws -> [UInt8] {
  var image = try RGBAImage(width: width, height: height, color: .white)
  image[1, 1] = RGBAColor(red: shade, green: 255 &- shade, blue: 40)
  return try PNGEncoder().encode(image)
}

/// Runs the built `merge-refs` as the docs print it.
func mergeRefs(_ arguments: [String], in folder: URL? = nil) throws -> ProcessOutput {
  try runProcess(try builtProduct("merge-refs").path, arguments, in: folder)
}

/// Writes bytes, creating folders.
func writeFile(_ bytes: [UInt8], to url: URL) throws {
  try FileManager.default.createDirectory(
    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try Data(bytes).write(to: url)
}

/// Every file below a folder with its bytes, to prove nothing was written.
func contents(of root: URL) throws -> [String: Data] {
  var files: [String: Data] = [:]
  let walk = FileManager.default.enumerator(atPath: root.path)
  while let path = walk?.nextObject() as? String {
    var isFolder: ObjCBool = false
    let url = root.appendingPathComponent(path)
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder),
      !isFolder.boolValue
    {
      files[path] = try Data(contentsOf: url)
    }
  }
  return files
}

/// An archive the way the coordinator writes it: its manifest first, then the PNGs.
func coordinatorArchive(_ images: [(path: String, png: [UInt8])], in folder: URL) throws
  -> [UInt8]
{
  let records = try images.map { image in
    let pixels = try PNGDecoder().decode(image.png)
    return ArchiveManifest.Image(
      path: image.path, test: "AppTests.testRender()", width: pixels.width,
      height: pixels.height, byteCount: image.png.count, pngSHA256: SHA256Digest(of: image.png),
      pixelSHA256: SHA256Digest(of: pixels.pixels))
  }
  let manifest = ArchiveManifest(
    toolVersion: "ReferenceImages test", runID: UUID().uuidString, run: nil,
    worker: .init(host: "mac-ci", pid: 7, os: "iOS 18.5", swiftVersion: "6.3.1", ci: [:]),
    mode: RunMode(rawValue: "all"), startedAt: Date(timeIntervalSince1970: 1_700_000_000),
    endedAt: Date(timeIntervalSince1970: 1_700_000_060), completion: .finished,
    tests: ["AppTests.testRender()"], images: records, unchangedImages: nil,
    verifiedReferences: [], testDurations: nil, skippedTests: [],
    coverage: .init(scope: .wholeBundle, arguments: []), replicas: nil,
    variants: nil)
  let url = folder.appendingPathComponent("archive-\(UUID().uuidString).zip")
  try ZipWriter().write(
    [
      ZipWriter.Entry(
        path: ArchiveManifest.entryName, contents: .bytes(Array(try manifest.encoded())))
    ]
      + images.map { ZipWriter.Entry(path: $0.path, contents: .bytes($0.png)) }, to: url)
  defer { try? FileManager.default.removeItem(at: url) }
  return Array(try Data(contentsOf: url))
}
