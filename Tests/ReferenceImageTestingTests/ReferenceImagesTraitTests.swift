import Foundation
import ReferenceImageTesting
import Testing

/// The `.referenceImages` trait: a suite's setting reaches its tests, a test's own trait wins,
/// and tests running at the same time keep their own settings.
@Suite(.referenceImages(mode: .missing, referenceFolder: URL(fileURLWithPath: "Suite")))
struct ReferenceImagesTraitTests {
  @Test func suiteSettingReachesItsTests() {
    #expect(ReferenceImages.mode == .missing)
    #expect(ReferenceImageSettings.current.referenceFolder?.relativePath == "Suite")
  }

  @Test(.referenceImages(mode: .all))
  func testTraitWinsOverTheSuiteAndKeepsWhatItDoesNotSet() {
    #expect(ReferenceImages.mode == .all)
    #expect(ReferenceImageSettings.current.referenceFolder?.relativePath == "Suite")
  }

  @Test(.referenceImages(mode: .failed), arguments: 0..<8)
  func everyCaseOfAParameterizedTest(index: Int) async throws {
    try await Task.sleep(nanoseconds: UInt64(8 - index) * 1_000_000)
    #expect(ReferenceImages.mode == .failed)
  }
}

@Suite struct ReferenceImagesTraitOutsideTests {
  @Test func testsWithoutTheTraitSeeTheEnvironment() {
    #expect(ReferenceImages.mode == ImageCoordinator.shared.environment.mode)
    #expect(ReferenceImageSettings.current == ReferenceImageSettings())
  }
}
