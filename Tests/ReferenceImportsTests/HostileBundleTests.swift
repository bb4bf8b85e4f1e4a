import Foundation
import ReferenceContracts
import SyntheticBundles
import TestSupport
import XCTest

/// Damaged and hostile bundles: each is refused by name (the bundle and the object), with
/// exit status 3 and nothing written.
final class HostileBundleTests: XCTestCase {
  private var folder: URL!
  private var destination: URL!
  private var bundle: SyntheticBundle!
  private let reference = "Tests/AppTests/__Snapshots__/SnapTests/testTitle.1.png"

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    destination = folder.appendingPathComponent("package")
    try writeFile(try samplePNG(1), to: destination.appendingPathComponent(reference))
    bundle = SyntheticBundle(url: folder.appendingPathComponent("Run.xcresult"))
  }

  private func writeOneSnapshot(fileName: String = "testTitle.1_0_\(UUID().uuidString).png")
    throws
  {
    try bundle.write([
      .init(
        identifier: "SnapTests/testTitle()",
        attachments: [.init(fileName: fileName, bytes: try samplePNG(2))])
    ])
  }

  /// Runs the merge and checks the refusal names the bundle, the object and the reason.
  private func assertRefused(
    object: String, reason: String, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let before = try contents(of: destination)
    let run = try mergeRefs([bundle.url.path, destination.path])
    XCTAssertEqual(run.status, ExitStatus.refusedInput.rawValue, run.all, file: file, line: line)
    for expected in [bundle.url.path, object, reason] {
      XCTAssertTrue(
        run.all.contains(expected), "\(expected) not in: \(run.all)", file: file, line: line)
    }
    XCTAssertEqual(try contents(of: destination), before, "nothing written", file: file, line: line)
    // Refused while listed or while read, the bundle is counted.
    XCTAssertTrue(run.output.contains(", 1 refused"), run.all, file: file, line: line)
  }

  func testABundleRefusedWhileListed_isCountedRefused_inJSON() throws {
    try writeOneSnapshot()
    try bundle.writeInfo(root: SyntheticBundle.randomID())
    let run = try mergeRefs(["--json", bundle.url.path, destination.path])
    XCTAssertEqual(run.status, ExitStatus.refusedInput.rawValue, run.all)
    let json = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], run.all)
    XCTAssertEqual(json["refused"] as? Int, 1, run.output)
  }

  /// A screenshot lands nowhere, yet its payload is checked against its content id before its
  /// kind is judged from its bytes: a damaged bundle is refused whatever the damage hits.
  func testACorruptPayloadThatLandsNowhere_isRefused() throws {
    let heic = [0, 0, 0, 24] + Array("ftypheic".utf8) + [UInt8](repeating: 7, count: 64)
    try bundle.write([
      .init(
        identifier: "UITests/testLaunch()",
        attachments: [
          .init(
            fileName: "Screenshot_0_\(UUID().uuidString).heic", typeIdentifier: "public.png",
            bytes: heic)
        ])
    ])
    let healthy = try mergeRefs(["--dry-run", bundle.url.path, destination.path])
    XCTAssertEqual(healthy.status, 0, healthy.all)
    XCTAssertTrue(healthy.all.contains("HEIC is not a reference"), healthy.all)
    let payload = bundle.payloadIDs[0]
    var damaged = heic
    damaged[40] ^= 0xFF
    try Data(SyntheticBundle.zstd(damaged)).write(to: bundle.objectURL(payload))
    try assertRefused(object: "Data/data.\(payload)", reason: "do not match its content id")
  }

  func testTheUntouchedBundleLands() throws {
    try writeOneSnapshot()
    let run = try mergeRefs([bundle.url.path, destination.path])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertEqual(
      Array(try Data(contentsOf: destination.appendingPathComponent(reference))), try samplePNG(2))
  }

  func testAMissingObjectOnTheAttachmentPathIsRefused() throws {
    try writeOneSnapshot()
    let summary = bundle.summaryIDs[0]
    try FileManager.default.removeItem(at: bundle.objectURL(summary))
    try assertRefused(object: "Data/data.\(summary)", reason: "missing from Data/")
  }

  func testAMissingObjectOffTheAttachmentPathIsNeverRead() throws {
    try writeOneSnapshot()
    var action = bundle.action(device: "iPhone 16", testsID: bundle.testsID)
    if case .object(let type, var fields, let items) = action {
      fields.append(("logRef", .reference(SyntheticBundle.randomID())))
      action = .object(type, fields, items)
    }
    let root = try bundle.writeObject(
      .object("ActionsInvocationRecord", [("actions", .array([action]))], []), references: 2)
    try bundle.writeInfo(root: root)
    let run = try mergeRefs([bundle.url.path, destination.path])
    XCTAssertEqual(run.status, 0, run.all)
  }

  func testAPayloadWhoseBytesDoNotMatchItsIDIsRefused() throws {
    try writeOneSnapshot()
    let payload = bundle.payloadIDs[0]
    try Data(SyntheticBundle.zstd(try samplePNG(3))).write(to: bundle.objectURL(payload))
    try assertRefused(object: "Data/data.\(payload)", reason: "do not match its content id")
  }

  func testAZstdBombIsRefusedByItsDeclaredAndItsActualSize() throws {
    try writeOneSnapshot()
    let summary = bundle.summaryIDs[0]
    let zeros = [UInt8](repeating: 0x5B, count: (64 << 20) + 1)
    for declares in [true, false] {
      try Data(SyntheticBundle.zstd(zeros, declaresSize: declares)).write(
        to: bundle.objectURL(summary))
      try assertRefused(object: "Data/data.\(summary)", reason: "a zstd bomb")
    }
  }

  func testAReferenceCycleIsRefused() throws {
    try writeOneSnapshot()
    let id = SyntheticBundle.randomID()
    let metadata = SyntheticBundle.Node.object(
      "ActionTestMetadata", [("summaryRef", .reference(id))], [])
    let testable = SyntheticBundle.Node.object(
      "ActionTestableSummary", [("tests", .array([metadata]))], [])
    let plan = SyntheticBundle.Node.object(
      "ActionTestPlanRunSummary", [("testableSummaries", .array([testable]))], [])
    var defined = Set<String>()
    let text = SyntheticBundle.encode(
      .object("ActionTestPlanRunSummaries", [("summaries", .array([plan]))], []), defined: &defined)
    try bundle.write(SyntheticBundle.zstd(text), id: id, references: 1)
    let root = try bundle.writeObject(
      .object(
        "ActionsInvocationRecord",
        [("actions", .array([bundle.action(device: "Mac", testsID: id)]))], []),
      references: 1)
    try bundle.writeInfo(root: root)
    try assertRefused(object: "Data/data.\(id)", reason: "a reference cycle")
  }

  func testVeryDeepNestingIsRefused() throws {
    try writeOneSnapshot()
    var node = SyntheticBundle.Node.string("deep")
    for _ in 0..<600 { node = .array([node]) }
    let root = try bundle.writeObject(
      .object("ActionsInvocationRecord", [("actions", node)], []), references: 0)
    try bundle.writeInfo(root: root)
    try assertRefused(object: "Data/data.\(root)", reason: "nested deeper than 512 levels")
  }

  func testATruncatedObjectIsRefused() throws {
    try writeOneSnapshot()
    let summary = bundle.summaryIDs[0]
    let stored = try Data(contentsOf: bundle.objectURL(summary))
    try stored.prefix(stored.count / 2).write(to: bundle.objectURL(summary))
    try assertRefused(object: "Data/data.\(summary)", reason: "damaged zstd data")
  }

  func testATruncatedStoredObjectIsRefused() throws {
    bundle.compress = false
    try writeOneSnapshot()
    let summary = bundle.summaryIDs[0]
    let stored = try Data(contentsOf: bundle.objectURL(summary))
    try stored.prefix(stored.count - 20).write(to: bundle.objectURL(summary))
    try assertRefused(object: "Data/data.\(summary)", reason: "truncated?")
  }

  func testAnInfoPlistNamingAMissingRootIsRefused() throws {
    try writeOneSnapshot()
    let missing = SyntheticBundle.randomID()
    try bundle.writeInfo(root: missing)
    try assertRefused(object: "Data/data.\(missing) (the root object", reason: "missing from Data/")
  }

  func testASymbolicLinkInsideTheBundleIsNeverFollowed() throws {
    try writeOneSnapshot()
    let summary = bundle.summaryIDs[0]
    let moved = folder.appendingPathComponent("elsewhere")
    try FileManager.default.moveItem(at: bundle.objectURL(summary), to: moved)
    try FileManager.default.createSymbolicLink(
      at: bundle.objectURL(summary), withDestinationURL: moved)
    try assertRefused(object: "Data/data.\(summary)", reason: "symbolic link")
  }

  func testANameThatIsNotUTF8IsRefused() throws {
    try bundle.write([
      .init(
        identifier: "SnapTests/testTitle()",
        attachments: [
          .init(
            fileName: "", rawFileName: [0x74, 0xFF, 0xFE, 0x2E, 0x70, 0x6E, 0x67],
            bytes: try samplePNG(2))
        ])
    ])
    try assertRefused(object: "Data/data.\(bundle.summaryIDs[0])", reason: "not UTF-8")
  }

  func testANameThatClimbsOrIsAbsoluteIsRefused() throws {
    try writeOneSnapshot(fileName: "../../testTitle.1_0_\(UUID().uuidString).png")
    try assertRefused(object: "attachment '../../testTitle.1_0_", reason: "climbs out")
    try FileManager.default.removeItem(at: bundle.url)
    bundle = SyntheticBundle(url: bundle.url)
    try writeOneSnapshot(fileName: "/etc/testTitle.1.png")
    try assertRefused(object: "attachment '/etc/testTitle.1.png'", reason: "absolute")
  }
}
