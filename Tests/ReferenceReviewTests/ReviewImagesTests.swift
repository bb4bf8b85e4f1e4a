import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// `ReviewImages`, the one reader the review report has of a merge, through its public API
/// only: the current references from the destination, the planned images from their sources
/// in batches, and a caller that stops early.
final class ReviewImagesTests: XCTestCase {
  private let folder = "Tests/ChartTests/__References__/Reader"
  private func path(_ index: Int) -> String { "\(folder)/image\(index).png" }

  /// Two archives of six and four images; the destination holds image 0 (old pixels) and a
  /// Git LFS pointer at image 1.
  private func makePlan() throws -> (MergePlan, [String: [UInt8]], old: [UInt8]) {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    let old = try PNGEncoder().encode(try noiseImage(seed: 99))
    try writeFile(old, to: destination.appendingPathComponent(path(0)))
    try writeFile(
      Array("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n".utf8),
      to: destination.appendingPathComponent(path(1)))
    var written: [String: [UInt8]] = [:]
    var sources: [MergeSource] = []
    for (archive, range) in [(0, 0..<6), (1, 6..<10)] {
      var builder = ArchiveBuilder(host: "host\(archive)", generatedAt: day(archive + 1))
      for index in range {
        written[path(index)] = try builder.add(path(index), try noiseImage(seed: index))
      }
      let url = root.appendingPathComponent("run\(archive).zip")
      try builder.write(to: url)
      sources += try MergeSource.expand(url.path)
    }
    let plan = MergePlanner(options: MergeOptions()).plan(
      sources: sources, destination: destination)
    return (plan, written, old)
  }

  func testForEachImage_sourcesInOrder_eachWantedImageOnce_inBatchesOfAboutTheBytesAsked()
    throws
  {
    let (plan, written, _) = try makePlan()
    let reader = try ReviewImages(plan: plan)
    let wanted: [Int: Set<String>] = [1: [path(7), path(9)], 0: [path(2), path(3), path(5)]]
    var batches: [[ReviewImages.SourceImage]] = []
    try reader.forEachImage(in: wanted, batchBytes: 1) { batches.append($0) }
    XCTAssertEqual(batches.map(\.count), [1, 1, 1, 1, 1], "one image is past one byte")
    let images = batches.flatMap { $0 }
    XCTAssertEqual(images.map(\.sourceIndex), [0, 0, 0, 1, 1])
    XCTAssertEqual(images.map(\.path), [2, 3, 5, 7, 9].map(path))
    for image in images { XCTAssertEqual(image.bytes, written[image.path], image.path) }

    var together: [[ReviewImages.SourceImage]] = []
    try reader.forEachImage(in: wanted, batchBytes: 1 << 30) { together.append($0) }
    XCTAssertEqual(together.map(\.count), [5], "everything in one batch when it fits")
  }

  func testForEachImage_bodyThrows_stopsTheReadingAndRethrows() throws {
    let (plan, _, _) = try makePlan()
    let reader = try ReviewImages(plan: plan)
    let all: [Int: Set<String>] = [0: Set((0..<6).map(path)), 1: Set((6..<10).map(path))]
    var calls = 0
    XCTAssertThrowsError(
      try reader.forEachImage(in: all, batchBytes: 1) { (_) throws(ArchiveError) in
        calls += 1
        if calls == 2 { throw .io(operation: "write", path: "card", message: "disk full") }
      }
    ) { XCTAssertTrue("\($0)".contains("disk full"), "\($0)") }
    XCTAssertEqual(calls, 2, "no batch after the error")
  }

  func testReference_bytesAsTheDestinationHoldsThem_noneForAPointerOrNothing() throws {
    let (plan, _, old) = try makePlan()
    let reader = try ReviewImages(plan: plan)
    XCTAssertEqual(reader.reference(at: path(0)), old)
    XCTAssertNil(reader.reference(at: path(1)), "a Git LFS pointer is no image")
    XCTAssertNil(reader.reference(at: path(2)), "nothing there")

    let decoded = try XCTUnwrap(reader.decodedReference(at: path(0)))
    let image = try noiseImage(seed: 99)
    XCTAssertEqual(decoded.bytes, old)
    XCTAssertEqual(decoded.image, image)
    XCTAssertEqual(decoded.pixelSHA256, image.pixels.withUnsafeBytes { SHA256Digest(of: $0) })
    XCTAssertNil(reader.decodedReference(at: path(1)), "a Git LFS pointer is no image")
  }
}
