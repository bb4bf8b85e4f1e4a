import Foundation
import ReferenceArchive
import ReferenceContracts
import XCTest

/// Real `swift test --attachments-path DIR --event-stream-output-path DIR/events.jsonl` on the
/// fixture's Swift Testing tests, then `merge-refs DIR .` as the LandingFromXcode article
/// prints it: the failed comparisons' actual renders land at their references, each with its
/// test; without the stream the folder is refused with the command that writes one.
final class SwiftTestingAttachmentsEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!
  private let badges = "Tests/SwiftTestingTests/__References__/SwiftTestingBadges"
  private let filter = ["--disable-xctest", "--filter", "SwiftTestingBadges"]

  override func setUpWithError() throws {
    fixture = try FixturePackage.built()
    try fixture.reset()
    try? FileManager.default.removeItem(at: attachments)
    try? FileManager.default.removeItem(at: fixture.root.appendingPathComponent("attachments-2"))
  }

  private var attachments: URL { fixture.root.appendingPathComponent("attachments") }

  /// The article's commands: make the folder, run the tests, merge the folder.
  private func articleCommands() throws -> [String] {
    let article = try String(
      contentsOf: FixturePackage.checkout.appendingPathComponent(
        "Sources/ReferenceImageTesting/ReferenceImageTesting.docc/LandingFromXcode.md"),
      encoding: .utf8)
    let blocks = article.components(separatedBy: "```sh\n").dropFirst().map {
      $0.components(separatedBy: "```")[0]
    }
    let block = try XCTUnwrap(blocks.first { $0.contains("--attachments-path") })
    let lines = block.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 3, block)
    return lines
  }

  /// One render changed (`bars`) and one reference missing (`badge-80`, a case): the run fails
  /// and attaches them; the merge of the folder lands exactly those two renders, byte for
  /// byte as attached, and the tests pass after it.
  func testAttachmentsWithTheirStream_landTheFailedRenders_andTheTestsPass() throws {
    try recordReferences()
    try FileManager.default.removeItem(at: url("\(badges)/badge-80.png"))
    let failed = try runWithAttachments()
    XCTAssertNotEqual(failed.status, 0, failed.all)
    let names = try FileManager.default.contentsOfDirectory(atPath: attachments.path)
    let actualBars = try XCTUnwrap(names.first { $0.hasSuffix("bars.actual.png") }, "\(names)")
    let actualBadge = try XCTUnwrap(
      names.first { $0.hasSuffix("badge%2D80[width=80].actual.png") }, "\(names)")
    XCTAssertEqual(
      FailureAttachmentName(fileName: actualBars)?.referencePath, "\(badges)/bars.png")
    XCTAssertTrue(names.contains { $0.hasSuffix("bars.difference.png") }, "\(names)")

    let plan = try MergeRefsRun.run(["--dry-run", attachments.path, "."], in: fixture.root)
    XCTAssertEqual(plan.exitStatus, .success, plan.all)
    XCTAssertTrue(plan.output.contains("1 added, 1 updated"), plan.all)
    XCTAssertTrue(
      plan.all.contains("images that are not references, not landed: 1 difference images"),
      plan.all)

    let land = try articleCommands()[2]
    let merged = try fixture.shell(land, environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(merged.exitStatus, .success, land + "\n" + merged.all)
    XCTAssertEqual(
      try Data(contentsOf: url("\(badges)/bars.png")),
      try Data(contentsOf: attachments.appendingPathComponent(actualBars)))
    XCTAssertEqual(
      try Data(contentsOf: url("\(badges)/badge-80.png")),
      try Data(contentsOf: attachments.appendingPathComponent(actualBadge)))
    let verify = try fixture.test(filter, environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertEqual(verify.status, 0, "the landed renders are the references now\n" + verify.all)
  }

  /// The provenance is the stream's: a conflict between two workers' folders names each
  /// attachment's test.
  func testTwoWorkersFolders_thatDisagree_areAConflictNamingTheTest() throws {
    try recordReferences()
    _ = try runWithAttachments()
    let second = fixture.root.appendingPathComponent("attachments-2")
    try? FileManager.default.removeItem(at: second)
    try FileManager.default.copyItem(at: attachments, to: second)
    let name = try XCTUnwrap(
      try FileManager.default.contentsOfDirectory(atPath: second.path).first {
        $0.hasSuffix("bars.actual.png")
      })
    // The other worker's render of bars differs: the pixels of the difference image.
    let other = try FileManager.default.contentsOfDirectory(atPath: second.path).first {
      $0.hasSuffix("bars.difference.png")
    }
    let otherBytes = try Data(contentsOf: second.appendingPathComponent(try XCTUnwrap(other)))
    try otherBytes.write(to: second.appendingPathComponent(name))

    let merged = try MergeRefsRun.run(
      ["--dry-run", attachments.path, second.path, "."], in: fixture.root)
    XCTAssertEqual(merged.exitStatus, .conflicts, merged.all)
    XCTAssertTrue(merged.all.contains("SwiftTestingTests.SwiftTestingBadges/bars()"), merged.all)
    XCTAssertTrue(merged.all.contains(second.path), merged.all)
  }

  /// Without its event stream the folder is refused by name, with the command that writes one,
  /// and nothing is written.
  func testAttachmentsWithoutTheStream_areRefusedWithTheCommand() throws {
    try recordReferences()
    _ = try runWithAttachments()
    try FileManager.default.removeItem(at: attachments.appendingPathComponent("events.jsonl"))
    let before = try Data(contentsOf: url("\(badges)/bars.png"))
    let merged = try MergeRefsRun.run([attachments.path, "."], in: fixture.root)
    XCTAssertEqual(merged.exitStatus, .refusedInput, merged.all)
    XCTAssertTrue(merged.all.contains("without their event stream"), merged.all)
    XCTAssertTrue(
      merged.all.contains(
        "--event-stream-output-path \(attachments.path)/events.jsonl"), merged.all)
    XCTAssertEqual(try Data(contentsOf: url("\(badges)/bars.png")), before)
  }

  private func url(_ path: String) -> URL { fixture.root.appendingPathComponent(path) }

  /// Records the suite's references and unpacks them, as a package that has them.
  private func recordReferences() throws {
    let run = try fixture.test(filter, environment: ["IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(run.status, 0, run.all)
    try fixture.unpackArchives()
  }

  /// The article's first two commands, with `bars` rendered differently; the tests are
  /// built already and only the suite runs.
  private func runWithAttachments() throws -> ProcessOutput {
    let commands = try articleCommands()
    XCTAssertEqual(commands[1].components(separatedBy: " ").prefix(2), ["swift", "test"])
    return try fixture.shell(
      commands[0] + " && " + commands[1] + " --skip-build " + filter.joined(separator: " "),
      environment: ["RENDER_FIXTURE_CHANGE": "bars"])
  }
}

/// The built `merge-refs`, run in a folder.
private enum MergeRefsRun {
  static func run(_ arguments: [String], in folder: URL) throws -> ProcessOutput {
    try runProcess(try mergeRefsBinary().path, arguments, in: folder)
  }
}
