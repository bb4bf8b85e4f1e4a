import ReferenceContracts
import ReferenceImageCore
import XCTest

@testable import ReferenceMerge

/// A pooled source's images are kept as flags and origin numbers beside their pool
/// (`SourceInventory.ImageList`): each must come back as the image it was.
final class ImageListTests: XCTestCase {
  private typealias Image = SourceInventory.Image

  /// Images of every combination of flags, of two tests, with and without a kept failure.
  private func images(count: Int) -> [Image] {
    (0..<count).map { index in
      let failure = ArchiveManifest.FailedComparison(
        referencePixelSHA256: nil, comparison: "exact", verdict: "no reference",
        differingPixels: nil, totalPixels: index, file: "Tests/T.swift", line: index)
      let test: String? = index % 5 == 4 ? nil : "T.test\(index % 3)()"
      return Image(
        path: String(format: "Tests/__References__/T/image%06d.png", index),
        pngSHA256: SHA256Digest(of: Array("png\(index)".utf8)),
        pixelSHA256: SHA256Digest(of: Array("pixels\(index)".utf8)), width: index, height: 2,
        test: test, isArchived: index % 2 == 0, destinationHeldIt: index % 4 < 2,
        failedComparison: index % 7 == 6 ? .init(failure, test: test) : nil)
    }
  }

  /// The list made the way a scan makes it: the paths pooled in order, with their records.
  private func pooledList(_ images: [Image]) -> SourceInventory.ImageList {
    let pool = PathPool(
      images.map(\.path), records: .held(images.map(\.pooledPath.record)))
    return SourceInventory.ImageList(pooling: images, in: pool)
  }

  private func assertSame(
    _ list: SourceInventory.ImageList, _ images: [Image], file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertEqual(list.count, images.count, file: file, line: line)
    for (position, (kept, image)) in zip(list, images).enumerated() {
      XCTAssertEqual(kept, image, "image \(position)", file: file, line: line)
      XCTAssertEqual(kept.isArchived, image.isArchived, "image \(position)", file: file, line: line)
      XCTAssertEqual(
        kept.destinationHeldIt, image.destinationHeldIt, "image \(position)", file: file,
        line: line)
      XCTAssertEqual(kept.test, image.test, "image \(position)", file: file, line: line)
      XCTAssertTrue(
        kept.failedComparison === image.failedComparison, "image \(position)", file: file,
        line: line)
      XCTAssertEqual(list.path(at: position), kept.pooledPath, file: file, line: line)
    }
  }

  func testPooledList_givesBackEveryImage() {
    let images = images(count: 40)
    assertSame(pooledList(images), images)
  }

  /// A source of one test's images, all archived alike: its flags and origin are kept once.
  func testPooledList_ofImagesAlike_givesBackEveryImage() {
    for heldByDestination in [false, true] {
      let images = images(count: 12).map { image in
        var image = image
        image.isArchived = true
        image.destinationHeldIt = heldByDestination
        image.test = "T.test()"
        image.failedComparison = nil
        return image
      }
      assertSame(pooledList(images), images)
    }
  }

  func testPooledList_sharesOneOriginATest_butNotAKeptFailure() {
    let list = pooledList(images(count: 40))
    for (a, b) in zip(list, list.dropFirst(3)) where a.test == b.test {
      let bothPlain = a.failedComparison == nil && b.failedComparison == nil
      XCTAssertEqual(a.origin === b.origin, bothPlain && a.test != nil, "\(a.path), \(b.path)")
    }
  }

  func testRemoveAll_keepsTheOthersInOrder() {
    let images = images(count: 40)
    var list = pooledList(images)
    list.removeAll { $0.path.hasSuffix("3.png") }
    assertSame(list, images.filter { !$0.path.hasSuffix("3.png") })
    list.removeAll { _ in false }
    XCTAssertEqual(list.count, 36)
  }

  /// Past 65,536 origins (every image's failure its own), the images are kept as they are.
  func testPooledList_ofMoreOriginsThanSixteenBits_givesBackEveryImage() {
    let images = images(count: 70_000).map { image in
      var image = image
      image.failedComparison = .init(
        .init(
          referencePixelSHA256: nil, comparison: "exact", verdict: "no reference",
          differingPixels: nil, totalPixels: 1, file: image.path, line: 1), test: image.test)
      return image
    }
    let list = pooledList(images)
    XCTAssertEqual(list.count, images.count)
    for position in [0, 1, 65_534, 65_535, 65_536, 69_999] {
      XCTAssertEqual(list[position], images[position], "image \(position)")
      XCTAssertEqual(list[position].failedComparison?.record.file, images[position].path)
      XCTAssertEqual(list.path(at: position).string, images[position].path)
    }
  }
}
