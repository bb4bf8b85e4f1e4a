import Foundation
import ReferenceImports
import XCTest

final class ResultBundleTests: XCTestCase {
  func testReadsTheXcode16BundleAttachmentsWithTheirArguments() throws {
    let attachments = try ResultBundle(url: try RealFixtures.screenshotbotBundle).attachments()
    XCTAssertEqual(attachments.count, 6)
    XCTAssertEqual(attachments.filter { $0.kind == .png }.count, 6)
    let snapshots = attachments.filter { $0.name.hasPrefix("SnapshotTest_") }
    XCTAssertEqual(
      snapshots.map(\.name).sorted(),
      ["SnapshotTest_testExample.1.png", "SnapshotTest_testLoginViewSnapshot.1.png"])
    XCTAssertEqual(
      snapshots.first { $0.name == "SnapshotTest_testExample.1.png" }?.provenance,
      AttachmentProvenance(
        test: "SimpleProjectTests/testExample()", configuration: "Test Scheme Action",
        device: "iPhone 16"))
    let launches = attachments.filter { $0.name == "Launch Screen.png" }
    XCTAssertEqual(
      Set(launches.map(\.provenance.arguments)),
      [["1", "1"], ["4", "1"], ["1", "2"], ["2", "4"]])
    XCTAssertEqual(
      Set(launches.map(\.provenance.test)), ["SimpleProjectUITestsLaunchTests/testLaunch"])
  }

  func testReadsTheXcode11BundleOverThreeConfigurations() throws {
    let attachments = try ResultBundle(url: try RealFixtures.xcparseBundle).attachments()
    XCTAssertEqual(attachments.count, 96)
    XCTAssertEqual(attachments.filter { $0.kind == .png }.count, 54)
    XCTAssertEqual(attachments.filter { $0.kind == .heic }.count, 18)
    XCTAssertEqual(Set(attachments.compactMap(\.provenance.configuration)), ["de", "en", "ko"])
  }

  func testReadsTheXcode26BundlesWithSwiftTestingRepetitions() throws {
    for url in [try RealFixtures.iOSBundle, try RealFixtures.macOSBundle] {
      let attachments = try ResultBundle(url: url).attachments()
      XCTAssertEqual(attachments.count, 4, url.lastPathComponent)
      let repeated = attachments.filter { $0.provenance.test == "ExampleSUITests/withAttachment()" }
      XCTAssertEqual(repeated.compactMap(\.provenance.repetition).sorted(), [1, 2, 3])
      XCTAssertEqual(Set(repeated.map(\.name)).count, 1, "one name over three repetitions")
    }
  }

  /// Every payload of every bundle is read and checked against its content id; PNGs also
  /// equal the copies `xcresulttool export attachments` wrote, where there are any.
  func testEveryPayloadMatchesItsContentIDAndTheExportedCopy() throws {
    let export = try RealFixtures.screenshotbotExport
    let exported = try AttachmentExport(url: export).attachments()
    var compared = 0
    for url in [
      try RealFixtures.screenshotbotBundle, try RealFixtures.xcparseBundle,
      try RealFixtures.iOSBundle, try RealFixtures.macOSBundle,
    ] {
      let bundle = try ResultBundle(url: url)
      for attachment in try bundle.attachments() {
        guard case .object(let id) = attachment.payload else { return XCTFail("not an object") }
        let bytes = try bundle.payload(id)
        guard AttachmentKind(sniffing: bytes) == .png else { continue }
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        guard url == (try RealFixtures.screenshotbotBundle) else { continue }
        let twin = exported.filter {
          $0.name == attachment.name && $0.provenance == attachment.provenance
        }
        XCTAssertEqual(twin.count, 1, attachment.name)
        guard let twin = twin.first, case .file(let name) = twin.payload else { continue }
        XCTAssertEqual(bytes, try AttachmentExport(url: export).payload(name), attachment.name)
        compared += 1
      }
    }
    XCTAssertEqual(compared, 6)
  }
}
