import Foundation
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// Reference paths beyond ASCII through the `merge-refs` binary: archives name them with the
/// zip standard's UTF-8 flag, which libarchive cannot convert in a program that never set a
/// locale; the merge must still land each file at its UTF-8 path, byte for byte.
final class NonASCIIPathTests: XCTestCase {
  private var merge: MergeScenario!
  private var root: URL { merge.root }
  private var destination: URL { merge.destination }
  /// Several scripts, an emoji and a decomposed `é` (e + U+0301), which a merge that
  /// normalized names would write to another path than the test reads.
  private let folder = "Tests/GrößeTests/__References__/日本語 русский"
  private var imagePath: String { "\(folder)/café e\u{301} עברית 😀.png" }

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: folder)
  }

  func testMerge_nonASCIIPath_landsAtItsUTF8PathAndTheSummaryNamesIt() throws {
    let source = try archive()
    XCTAssertEqual(try utf8Flags(source)[imagePath], true, "the case this test is about")

    let result = try MergeRefs.run([source.path, destination.path])

    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertNotNil(
      Array(result.output.utf8).firstRange(of: Array("added:\n  \(imagePath)\n".utf8)),
      result.output)
    // Names as the file system holds them; `==` on strings would ignore normalization.
    let names = try FileManager.default.contentsOfDirectory(
      atPath: destination.appendingPathComponent(folder).path)
    XCTAssertEqual(
      names.map(\.utf8).map(Array.init), [Array((imagePath as NSString).lastPathComponent.utf8)])
    let landed = try snapshot(destination).keys.filter { $0.hasSuffix(".png") }
    XCTAssertEqual(landed.map(\.utf8).map(Array.init), [Array(imagePath.utf8)])
  }

  func testMerge_nonASCIIPath_jsonNamesIt() throws {
    let source = try archive()

    let result = try MergeRefs.run([source.path, "--json", destination.path])

    XCTAssertEqual(result.exitStatus, .success, result.all)
    let summary = try decodedSummary(result.output)
    XCTAssertEqual(summary.changes.map(\.path.utf8).map(Array.init), [Array(imagePath.utf8)])
    XCTAssertEqual(summary.changes.first?.outcome, .added)
    XCTAssertTrue(summary.applied)
  }

  func testMerge_nameNotUTF8_refusedNamingTheArchiveAndTheEscapedName() throws {
    let good = try archive()
    // A name whose `é` (C3 A9) is then made a lone Latin-1 byte and a space, in the entry's
    // local header and in the central directory.
    let written = try archive("written.zip", path: "\(folder)/BADNAME-café.png")
    let bad = root.appendingPathComponent("bad.zip")
    let bytes = Array(try Data(contentsOf: written))
    let patched = bytes.replacing(
      Array("BADNAME-café".utf8), with: Array("BADNAME-caf".utf8) + [0xE9, 0x20])
    XCTAssertEqual(patched.count, bytes.count)
    try Data(patched).write(to: bad)

    let result = try MergeRefs.run([good.path, bad.path, "--keep-going", destination.path])

    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertTrue(
      result.output.contains(
        "error: \(bad.path): refused entry '\(folder)/BADNAME-caf\\xe9 .png': the name is not "
          + "valid UTF-8"),
      result.output)
    XCTAssertTrue(result.output.contains("1 added, 0 updated"), result.output)
    let landed = try snapshot(destination).keys.filter { $0.hasSuffix(".png") }
    XCTAssertEqual(landed.map(\.utf8).map(Array.init), [Array(imagePath.utf8)])
  }

  func testMerge_foldersEqualAsStringsOtherAsBytes_eachImageLandsInItsOwn() throws {
    // A composed and a decomposed `é`: one folder to `String` equality, two on disk. The merge
    // keeps each source's folders once (`PathPool`), by their bytes. (One name in both would
    // be one path twice, which the merge refuses.)
    let composed = "Tests/CafeTests/__References__/Caf\u{E9}/chart.png"
    let decomposed = "Tests/CafeTests/__References__/Cafe\u{301}/pie.png"
    XCTAssertEqual(
      (composed as NSString).deletingLastPathComponent,
      (decomposed as NSString).deletingLastPathComponent, "the case this test is about")
    try merge.archive("run.zip", [composed: .seed(1), decomposed: .seed(2)])

    let result = try MergeRefs.run(merge.arguments)

    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(result.output.contains("2 added"), result.output)
    let landed = try snapshot(destination).filter { $0.key.hasSuffix(".png") }
    XCTAssertEqual(
      Set(landed.keys.map { Array($0.utf8) }), [Array(composed.utf8), Array(decomposed.utf8)])
    let bytes = { (path: String) in
      try Data(contentsOf: self.destination.appendingPathComponent(path))
    }
    XCTAssertEqual(Array(try bytes(composed)), try Pixels.seed(1).png())
    XCTAssertEqual(Array(try bytes(decomposed)), try Pixels.seed(2).png())
  }

  /// Each name in the archive's central directory, and whether its UTF-8 flag (general
  /// purpose bit 11) is set. The archive has no comment, so the end record is its last 22 bytes.
  private func utf8Flags(_ url: URL) throws -> [String: Bool] {
    let bytes = Array(try Data(contentsOf: url))
    func le(_ at: Int, _ count: Int) -> Int {
      (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
    }
    let end = bytes.count - 22
    XCTAssertEqual(le(end, 4), 0x0605_4b50)
    var flags: [String: Bool] = [:]
    var position = le(end + 16, 4)
    while position < end && le(position, 4) == 0x0201_4b50 {
      let nameLength = le(position + 28, 2)
      let name = String(decoding: bytes[position + 46..<position + 46 + nameLength], as: UTF8.self)
      flags[name] = le(position + 8, 2) & 0x800 != 0
      position += 46 + nameLength + le(position + 30, 2) + le(position + 32, 2)
    }
    return flags
  }

  /// A coordinator-like archive holding one image, at `imagePath` unless given.
  private func archive(_ name: String = "run.zip", path: String? = nil) throws -> URL {
    try merge.archive(name, [path ?? imagePath: .seed(1)])
  }
}
