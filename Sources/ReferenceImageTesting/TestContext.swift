import Foundation
import ReferenceContracts
import Testing
import XCTest

/// Reports failures and attachments to whichever framework runs the current test: Swift
/// Testing when `Test.current` is set, XCTest otherwise.
struct TestContext {
  let fileID: String
  let filePath: StaticString
  let line: UInt
  let column: UInt

  /// Whether the caller runs under Swift Testing.
  var isSwiftTesting: Bool { Test.current != nil }

  /// The running test's name for the manifest and messages: as `swift test list` prints it
  /// (`Module.Suite/function()`, `Module.Class/testMethod`), the name every record uses.
  func testName(coordinator: ImageCoordinator) -> String {
    listingName(coordinator: coordinator) ?? "(no test running)"
  }

  /// The running case's arguments when the test is parameterized (Swift Testing); nil
  /// otherwise. Read once per assertion: `Test.Case.current` is task-local.
  var testCase: String? { isSwiftTesting ? TestCaseLabel.current : nil }

  /// The running test as `swift test list` names it, for a `--filter` that selects exactly it;
  /// nil when unknown.
  func listingName(coordinator: ImageCoordinator) -> String? {
    if let test = Test.current {
      return TestName.listing(swiftTestingID: String(describing: test.id))
    }
    return coordinator.currentXCTestListingName
  }

  func fail(_ message: String) {
    if isSwiftTesting {
      Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    } else {
      XCTFail(message, file: filePath, line: line)
    }
  }

  /// Records a file as a Swift Testing attachment (it lands in `--attachments-path`); XCTest on
  /// Linux has no attachments, so there the paths in the message are what CI collects.
  func attach(_ bytes: [UInt8], named name: String) {
    guard isSwiftTesting else { return }
    Attachment.record(bytes, named: name, sourceLocation: sourceLocation)
  }

  /// The calling file relative to the package root (`Tests/ChartTests/ChartTests.swift`), for
  /// annotations at the assertion; the whole path when the file is outside the package.
  func packageRelativeFile(packageRoot: URL) -> String {
    // Said to be a file, so Foundation does not ask the file system on every assertion.
    URL(fileURLWithPath: "\(filePath)", isDirectory: false)
      .pathRelative(toPackageRoot: packageRoot)
  }

  private var sourceLocation: SourceLocation {
    SourceLocation(
      fileID: fileID, filePath: "\(filePath)", line: Int(line), column: Int(column))
  }
}
