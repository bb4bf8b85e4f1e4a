import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceImageTesting

/// A failing `assertImage` says what kind of change each region is, one short line per region
/// between its sentence and the landing command, which stays last.
final class ChangeKindMessageTests: FailureCapturingTestCase {
  private var package: TemporaryPackage!

  override func setUpWithError() throws {
    package = try TemporaryPackage(self)
  }

  func testMismatch_movedAndRecoloured_oneLinePerRegionBeforeTheLandingCommand() throws {
    let reference = try picture(textAt: (10, 8), shape: .init(red: 0x16, green: 0xA3, blue: 0x4A))
    let image = try picture(textAt: (12, 9), shape: .init(red: 0x93, green: 0x33, blue: 0xEA))
    let message = try fail(image, reference: reference, mode: "failed")

    let lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    XCTAssertEqual(lines.count, 4, message)
    XCTAssertTrue(lines[0].contains("pixels differ in any channel"), lines[0])
    XCTAssertEqual(
      Set(lines[1...2]),
      [
        "  region x 70…85, y 20…35: recoloured #16A34A → #9333EA",
        "  region x 10…45, y 8…14: moved by (2, 1)",
      ])
    XCTAssertTrue(lines[3].hasPrefix("the render is kept in this run's archive"), lines[3])
  }

  func testMismatch_sizeChange_saysResizedAndClassifiesTheCommonArea() throws {
    let reference = try picture(textAt: (10, 8), width: 80)
    let image = try picture(textAt: (12, 9), width: 96)
    let message = try fail(image, reference: reference, mode: "0")

    XCTAssertTrue(message.contains("image size 96×48 differs from reference size 80×48"), message)
    XCTAssertTrue(
      message.contains("\n  region x 80…95, y 0…47: resized to 96×48 from reference 80×48"),
      message)
    XCTAssertTrue(message.contains("\n  region x 10…45, y 8…14: moved by (2, 1)"), message)
  }

  func testMismatch_manyRegions_listsThreeThenCounts() throws {
    let reference = try RGBAImage(width: 200, height: 20, color: .white)
    var image = reference
    for column in stride(from: 5, to: 200, by: 40) {
      for y in 5..<10 { for x in column..<(column + 4) { image[x, y] = .black } }
    }
    let message = try fail(image, reference: reference, mode: "0")
    let regionLines = message.split(separator: "\n").filter { $0.hasPrefix("  ") }
    XCTAssertEqual(regionLines.count, 4, message)
    XCTAssertEqual(regionLines.last, "  and 2 more regions (2 added)")
  }

  func testMismatch_ignoredClockInsideARegion_changesNotItsKind() throws {
    // Two lines of text moved by (2, 1), one box; between them a clock the test ignores.
    let clock = IgnoredRegion(x: 47, y: 8, width: 10, height: 7)
    let reference = try picture(textAt: (10, 8), secondTextAt: 58)
    var image = try picture(textAt: (12, 9), secondTextAt: 60)
    for y in clock.y..<(clock.y + clock.height) {
      for x in clock.x..<(clock.x + clock.width) {
        image[x, y] = .init(red: 90, green: 90, blue: 90)
      }
    }
    let message = try fail(
      image, reference: reference, mode: "failed",
      comparison: ImageComparison.exact.ignoring([clock]))

    let regionLines = message.split(separator: "\n").filter { $0.hasPrefix("  region") }
    XCTAssertEqual(regionLines, ["  region x 10…93, y 8…14: moved by (2, 1)"], message)
  }

  // MARK: - Helpers

  /// A 40 × 6 block of text-like marks at a place, and a filled square of a colour.
  private func picture(
    textAt origin: (x: Int, y: Int), secondTextAt second: Int? = nil, shape: RGBAColor? = nil,
    width: Int = 100
  ) throws -> RGBAImage {
    var image = try RGBAImage(width: width, height: 48, color: .white)
    drawText(&image, at: origin)
    if let second { drawText(&image, at: (second, origin.y)) }
    if let shape {
      for y in 20..<36 { for x in 70..<86 { image[x, y] = shape } }
    }
    return image
  }

  /// A 34 × 6 block of text-like marks, the same marks wherever it is drawn.
  private func drawText(_ image: inout RGBAImage, at origin: (x: Int, y: Int)) {
    var state: UInt32 = 12_345
    for y in 0..<6 {
      for x in 0..<34 where x % 7 != 6 {
        state = state &* 1_103_515_245 &+ 12_345
        if (state >> 16) % 3 == 0 { image[origin.x + x, origin.y + y] = .black }
      }
    }
  }

  /// Runs a failing assertion of `image` against `reference` in `mode`, returning its message.
  func testMissingReference_makesTheTargetsRootAndNothingElse() throws {
    let file = package.testFile("Tests/ChartTests/Bars/Stacked/StackTests.swift")
    let target = package.root.appendingPathComponent("Tests/ChartTests")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    var assertion = ImageAssertion(
      image: try RGBAImage(width: 4, height: 4, color: .white), name: "stack",
      comparison: .exact, bound: .none, referenceFolder: nil,
      context: TestContext(fileID: #fileID, filePath: #filePath, line: #line, column: #column),
      coordinator: ImageCoordinator(
        environment: ImageTestEnvironment(environment: [
          "IMAGE_GENERATION_MODE": "0", "IMAGE_GENERATION_OUTPUT": output.path,
          "IMAGE_DIFF_DIR": output.appendingPathComponent("diffs").path,
        ])))
    assertion.testFile = file
    capturing = true
    assertion.run()
    capturing = false
    XCTAssertEqual(captured.count, 1, "\(captured)")
    XCTAssertTrue(
      captured.first?.contains("Tests/ChartTests/__References__/Bars/Stacked/StackTests/stack.png")
        ?? false, "\(captured)")
    // The root and its committed placeholder, which keeps SwiftPM's exclude valid in a clone.
    let root = target.appendingPathComponent("__References__")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.path), [".gitkeep"])
  }

  private func fail(
    _ image: RGBAImage, reference: RGBAImage, mode: String,
    comparison: ImageComparison = .exact
  ) throws -> String {
    let location = try package.location("chart")
    try FileManager.default.createDirectory(
      at: location.url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(try PNGEncoder().encode(reference)).write(to: location.url)
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    let coordinator = ImageCoordinator(
      environment: ImageTestEnvironment(environment: [
        "IMAGE_GENERATION_MODE": mode, "IMAGE_GENERATION_OUTPUT": output.path,
        "IMAGE_DIFF_DIR": output.appendingPathComponent("diffs").path,
      ]))
    var assertion = ImageAssertion(
      image: image, name: "chart", comparison: comparison, bound: .none, referenceFolder: nil,
      context: TestContext(fileID: #fileID, filePath: #filePath, line: #line, column: #column),
      coordinator: coordinator)
    assertion.testFile = package.testFile()
    capturing = true
    assertion.run()
    capturing = false
    XCTAssertEqual(captured.count, 1, "\(captured)")
    return captured.first ?? ""
  }
}
