import Foundation
import XCTest

@testable import ReferenceImageTesting

/// `withReferenceImages`: scoped, nested, restored, and private to each concurrent task.
final class ReferenceImageSettingsTests: XCTestCase {
  private let environmentMode = ImageCoordinator.shared.environment.mode
  private let otherMode: GenerationMode = .all

  func testWithReferenceImages_overridesTheModeInsideTheScopeOnly() {
    XCTAssertEqual(ReferenceImages.mode, environmentMode)
    let inside = withReferenceImages(mode: .missing) { ReferenceImages.mode }
    XCTAssertEqual(inside, .missing)
    XCTAssertEqual(ReferenceImages.mode, environmentMode, "restored after the scope")
    XCTAssertEqual(ReferenceImageSettings.current, ReferenceImageSettings())
  }

  func testWithReferenceImages_nestedScopesKeepWhatTheyDoNotSet() {
    let folder = URL(fileURLWithPath: "Snapshots/Linux")
    withReferenceImages(mode: .failed, referenceFolder: folder) {
      withReferenceImages(mode: .all) {
        XCTAssertEqual(
          ReferenceImageSettings.current,
          ReferenceImageSettings(mode: .all, referenceFolder: folder))
      }
      withReferenceImages(referenceFolder: URL(fileURLWithPath: "Other")) {
        XCTAssertEqual(ReferenceImages.mode, .failed)
        XCTAssertEqual(ReferenceImageSettings.current.referenceFolder?.relativePath, "Other")
      }
      XCTAssertEqual(
        ReferenceImageSettings.current,
        ReferenceImageSettings(mode: .failed, referenceFolder: folder))
    }
  }

  func testWithReferenceImages_rethrowsAndRestores() {
    struct Expected: Error {}
    XCTAssertThrowsError(try withReferenceImages(mode: .all) { throw Expected() }) {
      XCTAssertTrue($0 is Expected)
    }
    XCTAssertEqual(ReferenceImages.mode, environmentMode)
  }

  func testWithReferenceImages_concurrentTasksSeeOnlyTheirOwnMode() async {
    let modes: [GenerationMode?] = [.all, .missing, .failed, .verify, nil]
    // Each task waits at the barrier until all are inside their scope, then reads its mode: the
    // scopes overlap in time, and each still sees its own.
    let barrier = Barrier(count: modes.count * 20)
    let seen = await withTaskGroup(of: (GenerationMode?, GenerationMode).self) { group in
      for _ in 0..<20 {
        for mode in modes {
          group.addTask {
            guard let mode else {
              await barrier.arrive()
              return (nil, ReferenceImages.mode)
            }
            return await withReferenceImages(mode: mode) {
              await barrier.arrive()
              return (mode, ReferenceImages.mode)
            }
          }
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    XCTAssertEqual(seen.count, modes.count * 20)
    for (set, read) in seen {
      XCTAssertEqual(read, set ?? environmentMode)
    }
  }
}

extension ReferenceImageSettingsTests {
  /// The whole assertion under XCTest, with a private coordinator whose environment says verify:
  /// inside `withReferenceImages(mode: .all, referenceFolder:)` the image is recorded, at the
  /// scoped folder, without a reference and without a failure.
  func testAssertion_insideWithReferenceImages_recordsIntoTheScopedFolder() throws {
    let output = try makeTemporaryFolder(self).appendingPathComponent("archives")
    let coordinator = makeCoordinator(output: output, mode: "0")
    // Inside this package (the root above this file), where no reference exists.
    let folder = ".build/scoped-settings-\(UUID().uuidString.prefix(8))"
    let image = try sampleImage(seed: 11)
    withReferenceImages(mode: .all, referenceFolder: URL(fileURLWithPath: folder)) {
      ImageAssertion(
        image: image, name: "scoped", comparison: .exact, bound: .none, referenceFolder: nil,
        context: TestContext(fileID: #fileID, filePath: #filePath, line: #line, column: #column),
        coordinator: coordinator
      ).run()
    }
    let archive = try XCTUnwrap(coordinator.finishRun())
    let manifest = try XCTUnwrap(try ArchiveContents(archive).manifest)
    XCTAssertEqual(manifest.images.map(\.path), [folder + "/scoped.png"])
    XCTAssertEqual(manifest.mode, "verify", "the run's mode is the environment's")
  }
}

/// Suspends each caller until `count` callers have arrived.
actor Barrier {
  private let count: Int
  private var arrived = 0
  private var waiting: [CheckedContinuation<Void, Never>] = []

  init(count: Int) { self.count = count }

  func arrive() async {
    arrived += 1
    if arrived == count {
      waiting.forEach { $0.resume() }
      waiting = []
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }
}
