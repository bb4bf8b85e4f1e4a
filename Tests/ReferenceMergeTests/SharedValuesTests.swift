import Foundation
import ReferenceContracts
import XCTest

@testable import ReferenceMerge

/// Inventories share what their manifests hold alike (`SharedValues`): the values stay as they
/// were, and equal ones are one copy.
final class SharedValuesTests: XCTestCase {
  /// A manifest of one archive of a fleet: its own run id and test, the rest alike.
  private func manifest(_ index: Int) -> ArchiveManifest {
    // Made, not literals (which share the binary's bytes), and longer than 15 bytes: each
    // string has storage of its own to share.
    // Made anew each time: equal names read from JSON do not share their storage.
    func test() -> String {
      String(repeating: "FleetTests.Fleet1Tests/", count: 2) + "testIcons\(index)"
    }
    return ArchiveManifest(
      toolVersion: String(repeating: "ReferenceImages 0.1.0 ", count: 2),
      runID: "run-id-\(index)-" + String(repeating: "0", count: 30),
      run: "shards:benchmark:" + String(repeating: "1", count: 10),
      worker: .init(
        host: String(repeating: "build-host-", count: 3), pid: Int32(index),
        os: "Debian GNU/Linux \(12) (bookworm)", swiftVersion: "Swift version \(6.3) (swift-6.3.1)",
        ci: ["IMAGE_GENERATION_SHARD": "\(7)/100, the fleet's shards"]),
      mode: "all", startedAt: Date(timeIntervalSince1970: 1_795_767_611),
      endedAt: Date(timeIntervalSince1970: 1_795_767_612), completion: .finished,
      tests: [test()], images: [], verifiedReferences: [],
      testDurations: [.init(test: test(), seconds: 0.5)], skippedTests: [test() + "Skipped"],
      coverage: .init(scope: .selectedTests, arguments: [test()]))
  }

  /// Where a string's bytes are: equal for strings that share their storage.
  private func storage(_ string: String) -> UnsafeRawPointer? {
    string.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
  }

  func testManifest_keepsEveryValue() throws {
    let shared = SharedValues()
    for index in 0..<3 {
      let original = manifest(index)
      XCTAssertEqual(
        String(decoding: try shared.manifest(original).encoded(), as: UTF8.self),
        String(decoding: try original.encoded(), as: UTF8.self))
    }
  }

  func testManifest_sharesValuesAlike_andTestNamesWithinOne() throws {
    let shared = SharedValues()
    let first = shared.manifest(manifest(1))
    let second = shared.manifest(manifest(2))
    for (name, value) in [
      ("toolVersion", { (m: ArchiveManifest) in m.toolVersion }), ("run", { $0.run ?? "" }),
      ("host", { $0.worker.host }), ("os", { $0.worker.os }),
      ("swiftVersion", { $0.worker.swiftVersion }),
      ("CI variable", { $0.worker.ci["IMAGE_GENERATION_SHARD"] ?? "" }),
    ] {
      XCTAssertNotNil(storage(value(first)), name)
      XCTAssertEqual(storage(value(first)), storage(value(second)), name)
    }
    XCTAssertNotEqual(storage(first.runID), storage(second.runID))
    let test = storage(second.tests[0])
    XCTAssertEqual(storage(second.testDurations?[0].test ?? ""), test)
    XCTAssertEqual(storage(second.coverage?.arguments[0] ?? ""), test)
    XCTAssertNotEqual(storage(first.tests[0]), test)
  }

  func testSuiteFiles_equalTablesAreOne() {
    let shared = SharedValues()
    func file() -> String {
      "Tests/FleetTests/" + String(repeating: "Fleet1Tests", count: 3) + ".swift"
    }
    let first = shared.suiteFiles(["FleetTests.Fleet1Tests": [file()]])
    let second = shared.suiteFiles(["FleetTests.Fleet1Tests": [file()]])
    XCTAssertEqual(first, second)
    XCTAssertEqual(
      storage(first.values.first?.first ?? ""), storage(second.values.first?.first ?? ""))
  }
}
