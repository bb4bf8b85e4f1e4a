import Foundation
import ReferenceImageCore
import TestSupport
import XCTest

/// `compact-references` run as the documentation prints it (`compact-references --dry-run
/// Tests`, then `compact-references Tests`): the built binary on a tree of references this
/// package wrote, files from other tools, a 16-bit file, a malformed file and a hidden folder.
final class CompactReferencesCommandTests: XCTestCase {
  private let decoderFixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("ReferenceImageCoreTests/__Fixtures__")

  private struct Tree {
    var root: URL
    var ours: [URL]
    var others: [URL]
    var sixteenBit: URL
    var malformed: URL
    var hidden: URL
    /// Every file's bytes before the command ran.
    var before: [URL: [UInt8]]
  }

  func testDryRun_printsTheBytesSaved_andWritesNothing() throws {
    let tree = try makeTree()
    let run = try compactReferences(["--dry-run", tree.root.path])
    XCTAssertEqual(run.status, 1, run.all)
    let expected = try tree.ours.reduce(0) { sum, file in
      sum + (try Data(contentsOf: file).count)
    }
    XCTAssertTrue(
      run.output.contains(
        "would compact \(tree.ours.count) of \(tree.before.count - 1) PNG files: \(expected) → "),
      run.all)
    XCTAssertTrue(run.output.contains("\(tree.others.count) without a pixel digest"), run.all)
    XCTAssertTrue(run.output.contains("1 of 16-bit samples, unchanged"), run.all)
    XCTAssertTrue(run.error.contains("\(tree.malformed.path): "), run.all)
    try assertUnchanged(tree.before, "the dry run")
  }

  func testRun_compactsOwnFilesWithSamePixels_leavesTheRestAlone_andConverges() throws {
    let tree = try makeTree()
    let first = try compactReferences(["--verbose", tree.root.path])
    XCTAssertEqual(first.status, 1, first.all)
    XCTAssertTrue(first.error.contains("\(tree.malformed.path): "), first.all)
    XCTAssertTrue(first.error.contains("the file is unchanged"), first.all)
    for file in tree.ours {
      let old = try XCTUnwrap(tree.before[file])
      let new = [UInt8](try Data(contentsOf: file))
      XCTAssertLessThan(new.count, old.count, file.lastPathComponent)
      XCTAssertEqual(try PNGDecoder().decode(new), try PNGDecoder().decode(old), file.path)
      XCTAssertNotNil(PNGPixelDigest.read(fromPNG: new), "\(file.path) lost its digest")
      XCTAssertTrue(
        first.output.contains("compacted \(file.path): \(old.count) → \(new.count) bytes"),
        first.all)
    }
    try assertUnchanged(
      tree.before.filter { !tree.ours.contains($0.key) }, "files other than ours")
    var afterFirst: [URL: [UInt8]] = [:]
    for file in tree.before.keys { afterFirst[file] = [UInt8](try Data(contentsOf: file)) }

    let second = try compactReferences([tree.root.path])
    XCTAssertTrue(second.output.contains("compacted 0 of"), second.all)
    XCTAssertTrue(second.output.contains("\(tree.ours.count) already compact"), second.all)
    try assertUnchanged(afterFirst, "the second run")
  }

  func testIncludeOtherTools_compactsTheirFiles_butNever16Bit() throws {
    let tree = try makeTree()
    try FileManager.default.removeItem(at: tree.malformed)
    let run = try compactReferences(["--include-other-tools", tree.root.path])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertTrue(run.output.contains("1 of 16-bit samples, unchanged"), run.all)
    XCTAssertEqual([UInt8](try Data(contentsOf: tree.sixteenBit)), tree.before[tree.sixteenBit])
    for file in tree.others {
      let old = try XCTUnwrap(tree.before[file])
      let new = [UInt8](try Data(contentsOf: file))
      XCTAssertLessThanOrEqual(new.count, old.count, file.lastPathComponent)
      XCTAssertEqual(try PNGDecoder().decode(new), try PNGDecoder().decode(old), file.path)
    }
    XCTAssertEqual([UInt8](try Data(contentsOf: tree.hidden)), tree.before[tree.hidden])
  }

  func testArticle_helpMatchesTheBinary() throws {
    let help = try compactReferences(["--help"])
    XCTAssertEqual(help.status, 0, help.all)
    XCTAssertEqual(
      try block(startingWith: "OVERVIEW:"), help.output.trimmingCharacters(in: .newlines),
      "paste the output of `compact-references --help` into the CompactReferences article")
  }

  func testArticle_commandsRunAsPrinted() throws {
    // The article's two commands, run from a package root whose Tests folder holds the tree.
    let tree = try makeTree()
    try FileManager.default.removeItem(at: tree.malformed)
    let lines = try block(startingWith: "swift run compact-references", language: "sh")
      .split(separator: "\n").map { String($0.split(separator: "#")[0]) }
    XCTAssertEqual(lines.count, 2, "\(lines)")
    let readme = try block(
      startingWith: "swift run compact-references", language: "sh", in: "README.md")
    XCTAssertEqual(
      readme.split(separator: "\n").map {
        $0.split(separator: "#")[0].trimmingCharacters(in: .whitespaces)
      },
      lines.map { $0.trimmingCharacters(in: .whitespaces) }, "README's commands are the article's")
    var outputs: [String] = []
    for line in lines {
      var words = line.split(separator: " ").map(String.init)
      XCTAssertEqual(Array(words.prefix(2)), ["swift", "run"], line)
      XCTAssertEqual(words[2], "compact-references", line)
      words.removeFirst(3)
      let run = try runProcess(
        try builtProduct("compact-references").path, words,
        in: tree.root.deletingLastPathComponent())
      XCTAssertEqual(run.status, 0, "\(line): \(run.all)")
      outputs.append(run.output)
    }
    XCTAssertTrue(outputs[0].hasPrefix("would compact \(tree.ours.count) of"), outputs[0])
    XCTAssertTrue(outputs[1].hasPrefix("compacted \(tree.ours.count) of"), outputs[1])
    for file in tree.ours {
      XCTAssertLessThan(try Data(contentsOf: file).count, tree.before[file]!.count, file.path)
    }
  }

  func testNoPath_isAUsageError() throws {
    let run = try compactReferences([])
    XCTAssertEqual(run.status, 64, run.all)
    XCTAssertTrue(run.error.contains("give at least one file or folder"), run.all)
  }

  // MARK: Helpers

  private func compactReferences(_ arguments: [String]) throws -> ProcessOutput {
    try runProcess(try builtProduct("compact-references").path, arguments)
  }

  /// A fenced block that starts with `firstLine` in a file of the checkout (by default the
  /// CompactReferences article).
  private func block(
    startingWith firstLine: String, language: String = "",
    in path: String =
      "Sources/ReferenceImageTesting/ReferenceImageTesting.docc/CompactReferences.md"
  ) throws -> String {
    let file = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent(path)
    let text = try String(contentsOf: file, encoding: .utf8)
    let start = try XCTUnwrap(text.range(of: "```\(language)\n" + firstLine), "no such block")
    let body = text[start.upperBound...]
    let end = try XCTUnwrap(body.range(of: "\n```"))
    return firstLine + String(body[..<end.lowerBound])
  }

  private func assertUnchanged(_ files: [URL: [UInt8]], _ what: String) throws {
    for (file, bytes) in files {
      XCTAssertEqual([UInt8](try Data(contentsOf: file)), bytes, "\(what) changed \(file.path)")
    }
  }

  /// A `Tests` folder: references written by this package (`.fast`, the default) in nested
  /// folders, decoder fixtures written by other tools, a 16-bit one, a malformed file, and a
  /// file in a hidden folder.
  private func makeTree() throws -> Tree {
    let root = try makeTemporaryFolder(self).appendingPathComponent("Tests")
    let references = root.appendingPathComponent("ChartTests/__References__/Suite")
    try FileManager.default.createDirectory(at: references, withIntermediateDirectories: true)
    var ours: [URL] = []
    for (name, image) in try Self.ourImages() {
      let file = references.appendingPathComponent("\(name).png")
      try Data(PNGEncoder().encode(image)).write(to: file)
      ours.append(file)
    }
    let others = try ["palette8_trns_33x17", "adam7_grey1_33x17", "rgb8_33x17", "rgba8_33x17"].map {
      name in
      let file = references.appendingPathComponent("other-\(name).png")
      try FileManager.default.copyItem(
        at: decoderFixtures.appendingPathComponent("png/\(name).png"), to: file)
      return file
    }
    let sixteenBit = references.appendingPathComponent("rgba16.png")
    try FileManager.default.copyItem(
      at: decoderFixtures.appendingPathComponent("png/rgba16_7x5.png"), to: sixteenBit)
    let malformed = root.appendingPathComponent("broken.png")
    try FileManager.default.copyItem(
      at: decoderFixtures.appendingPathComponent("malformed/short_idat.png"), to: malformed)
    let hidden = root.appendingPathComponent(".build/hidden.png")
    try FileManager.default.createDirectory(
      at: hidden.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: ours[0], to: hidden)
    var before: [URL: [UInt8]] = [:]
    for file in ours + others + [sixteenBit, malformed, hidden] {
      before[file] = [UInt8](try Data(contentsOf: file))
    }
    return Tree(
      root: root, ours: ours, others: others, sixteenBit: sixteenBit, malformed: malformed,
      hidden: hidden, before: before)
  }

  /// Images whose compact form is clearly smaller than `.fast`'s: a screenshot-like picture
  /// with a gradient, translucent colours, a two-colour checker of odd size, and grey levels.
  private static func ourImages() throws -> [(String, RGBAImage)] {
    var screenshot = try RGBAImage(
      width: 200, height: 120, color: RGBAColor(red: 246, green: 246, blue: 248))
    for y in 10..<110 {
      for x in 10..<190 where x < 60 || y > 30 {
        screenshot[x, y] = x < 60 ? RGBAColor(red: 40, green: 44, blue: 52) : .white
      }
      for x in 70..<190 where y % 12 == 0 && x % 5 != 0 {
        screenshot[x, y] = RGBAColor(red: 30, green: 30, blue: UInt8(x))
      }
    }
    var translucent = try RGBAImage(width: 64, height: 40, color: .clear)
    var checker = try RGBAImage(width: 33, height: 17, color: .white)
    var grey = try RGBAImage(width: 256, height: 8, color: .black)
    for y in 0..<40 {
      for x in 0..<64 {
        translucent[x, y] = RGBAColor(red: 200, green: UInt8(x * 4), blue: 10, alpha: UInt8(y * 6))
      }
    }
    for y in 0..<17 { for x in 0..<33 where (x + y) % 2 == 0 { checker[x, y] = .red } }
    for y in 0..<8 {
      for x in 0..<256 { grey[x, y] = RGBAColor(red: UInt8(x), green: UInt8(x), blue: UInt8(x)) }
    }
    return [
      ("screenshot", screenshot), ("translucent", translucent), ("checker", checker),
      ("grey", grey),
    ]
  }
}
