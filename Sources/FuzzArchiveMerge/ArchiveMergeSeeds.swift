import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge

/// The seed archives of the merge fuzzer, written with `ZipWriter` as the coordinator writes
/// them: each reaches a different part of the planner from the same scratch package.
enum ArchiveMergeSeeds {
  static func write(to folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let same = ArchiveMergeFuzz.existingPNG
    let changed = ArchiveMergeFuzz.png(width: 6, height: 4, shade: 90)
    let other = ArchiveMergeFuzz.png(width: 3, height: 5, shade: 7)
    let existing = ArchiveMergeFuzz.existingPath
    let added = "Tests/BadgeTests/__References__/BadgeTests/variants/small.png"

    try archive(folder, "complete-unchanged-and-added", [(existing, same), (added, other)])
    try archive(folder, "complete-updated", [(existing, changed)])
    try archive(folder, "running", [(existing, changed)], completion: .running)
    try archive(folder, "no-manifest", [(existing, changed), (added, other)], manifest: false)
    try archive(folder, "manifest-last", [(existing, changed), (added, other)], manifestLast: true)
    try archive(
      folder, "missing-entry", [(added, other)], extraRecords: [(existing, changed)])
    // An artifact zip holding two runs that disagree about one path: a conflict.
    let scratch = folder.appendingPathComponent(".scratch")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    try archive(scratch, "a", [(existing, changed)])
    try archive(scratch, "b", [(existing, other)])
    try ZipWriter().write(
      ["a", "b"].map {
        .init(path: "run-\($0).zip", contents: .file(scratch.appendingPathComponent("\($0).zip")))
      }, to: folder.appendingPathComponent("nested-conflict.zip"),
      modificationDate: fixedDate)
  }

  static let fixedDate = Date(timeIntervalSince1970: 1_800_000_000)

  private static func archive(
    _ folder: URL, _ name: String, _ images: [(String, [UInt8])],
    completion: ArchiveManifest.Completion = .finished, manifest: Bool = true,
    manifestLast: Bool = false, extraRecords: [(String, [UInt8])] = []
  ) throws {
    let records = try (images + extraRecords).map { path, png in
      let image = try PNGDecoder().decode(png)
      return ArchiveManifest.Image(
        path: path, test: "SeedTests.test\(name.filter(\.isLetter))", width: image.width,
        height: image.height, byteCount: png.count, pngSHA256: SHA256Digest(of: png),
        pixelSHA256: SHA256Digest(of: image.pixels))
    }
    let manifestBytes = try ArchiveManifest(
      toolVersion: "ReferenceImages fuzz seed", runID: "00000000-seed-\(name)",
      worker: .init(host: "seed", pid: 1, os: "Linux", swiftVersion: "6.3", ci: [:]),
      mode: .all, startedAt: fixedDate, endedAt: completion == .finished ? fixedDate : nil,
      completion: completion, tests: records.map(\.test), images: records,
      verifiedReferences: records.map(\.path)
    ).encoded()
    var entries = images.map { ZipWriter.Entry(path: $0.0, contents: .bytes($0.1)) }
    if manifest {
      let entry = ZipWriter.Entry(
        path: ArchiveManifest.entryName, contents: .bytes([UInt8](manifestBytes)))
      if manifestLast { entries.append(entry) } else { entries.insert(entry, at: 0) }
    }
    try ZipWriter().write(
      entries, to: folder.appendingPathComponent("\(name).zip"), modificationDate: fixedDate)
  }
}
