import Foundation
import ReferenceContracts
import XCTest

/// Called by the C constructor in `CReferenceImageRegistration` when the test binary loads,
/// before any test runs.
@_cdecl("ReferenceImagesRegisterCoordinator")
public func referenceImagesRegisterCoordinator() {
  ImageCoordinator.shared.registerIfNeeded()
}

extension ImageCoordinator {
  /// Registers the coordinator as an XCTest observer and installs the process-exit fallback,
  /// once. Called at load time, and again (doing nothing) by every assertion, which makes lazy
  /// registration the fallback on platforms where the constructor does not run.
  public func registerIfNeeded() {
    Self.registration.perform { [self] in
      XCTestObservationCenter.shared.addTestObserver(CoordinatorObserver(coordinator: self))
      // Swift Testing runs no XCTest bundle, so the archive is written at exit instead.
      atexit {
        ImageCoordinator.shared.finishRun()
        ImageCoordinator.shared.failProcessIfImagesWereLost(insideExitHandler: true)
      }
      if case .invalid(let value) = environment.mode {
        log("error: " + GenerationMode.invalidMessage(value))
      }
      if let value = environment.invalidReplicas {
        log(
          "error: \(ImageTestEnvironment.replicasVariable)=\(value) is not a whole number from 1 "
            + "to 100; this run's archive does not say that its tests are replicated, so renders "
            + "that differ between runs will be reported as conflicts, not as unstable")
      }
    }
  }

  private static let registration = Once()
}

/// Runs a closure exactly once, thread-safely.
final class Once: @unchecked Sendable {
  private let lock = NSLock()
  private var done = false

  func perform(_ body: () -> Void) {
    lock.lock()
    defer { lock.unlock() }
    guard !done else { return }
    done = true
    body()
  }
}

/// Forwards XCTest's bundle and test-case events to the coordinator.
final class CoordinatorObserver: NSObject, XCTestObservation, @unchecked Sendable {
  let coordinator: ImageCoordinator

  init(coordinator: ImageCoordinator) {
    self.coordinator = coordinator
  }

  /// Every record of the test names it by its `swift test list` name, as the shard plans and
  /// the Swift Testing event streams do.
  func testCaseWillStart(_ testCase: XCTestCase) {
    let name = Self.listingName(of: testCase)
    coordinator.testStarted(name, isXCTest: true)
    coordinator.xcTestStarted(listingName: name)
  }

  func testCaseDidFinish(_ testCase: XCTestCase) {
    let name = Self.listingName(of: testCase)
    coordinator.xcTestFinished(listingName: name)
    guard let run = testCase.testRun else { return }
    if run.hasBeenSkipped {
      coordinator.xcTestSkipped(listingName: name)
    } else if !run.hasSucceeded {
      coordinator.xcTestFailed(listingName: name, file: nil)
    }
  }

  /// A failure's file says which reference folder the failed test may own: its name alone,
  /// as Swift Testing's event stream names a test's file.
  func testCase(
    _ testCase: XCTestCase, didFailWithDescription description: String, inFile filePath: String?,
    atLine lineNumber: Int
  ) {
    let file = filePath.flatMap { $0.split(separator: "/").last.map(String.init) }
    coordinator.xcTestFailed(listingName: Self.listingName(of: testCase), file: file)
  }

  /// The first suite to start is the root: XCTest names it "All tests" when no argument
  /// selected tests (on Linux and in Xcode alike; untested on Apple platforms).
  func testSuiteWillStart(_ testSuite: XCTestSuite) {
    coordinator.xcTestRootSuiteStarted(runsWholeBundle: testSuite.name == "All tests")
  }

  /// The test's name as `swift test list` prints it, `Module.Class/testMethod`: the type's
  /// module-qualified name and the method, from `name` as Linux (`Class.testMethod`) or Apple
  /// platforms (`-[Class testMethod]`) spell it.
  static func listingName(of testCase: XCTestCase) -> String {
    listingName(typeName: String(reflecting: type(of: testCase)), caseName: testCase.name)
  }

  /// `listingName(of:)` from the two strings, for tests.
  static func listingName(typeName: String, caseName: String) -> String {
    TestName.listing(xcTestType: typeName, caseName: caseName)
  }

  func testBundleDidFinish(_ testBundle: Bundle) {
    if let archive = coordinator.finishRun() { attach(archive) }
    coordinator.failProcessIfImagesWereLost(insideExitHandler: false)
  }

  /// Apple platforms keep the archive as an attachment too (untested: built only there).
  private func attach(_ archive: URL) {
    #if canImport(ObjectiveC)
      XCTContext.runActivity(named: "ReferenceImages archive") { activity in
        let attachment = XCTAttachment(contentsOfFile: archive)
        attachment.lifetime = .keepAlways
        activity.add(attachment)
      }
    #endif
  }
}
