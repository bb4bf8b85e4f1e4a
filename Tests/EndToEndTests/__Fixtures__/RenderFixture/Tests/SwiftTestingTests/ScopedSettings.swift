import Foundation
import ReferenceImageTesting
import Shapes
import Testing

/// Three tests that are in flight at the same time under one `IMAGE_GENERATION_MODE`: the trait
/// and the scoped function record the images of their own test only. Runs only when
/// `RENDER_FIXTURE_SCOPED=1` (ScopedSettingsEndToEndTests sets it), so the other end-to-end runs
/// see no new test or image.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["RENDER_FIXTURE_SCOPED"] == "1"))
struct ScopedSettings {
  static let meeting = Meeting(expected: 3)

  @Test(.referenceImages(mode: .all))
  func recordedByTrait() async {
    #expect(await Self.meeting.arrive(), "all three tests were running at once")
    assertImage(Shapes.bars([5, 10, 15]), named: "trait")
  }

  @Test func verifiedByEnvironment() async {
    #expect(await Self.meeting.arrive(), "all three tests were running at once")
    assertImage(Shapes.bars([15, 10, 5]), named: "environment")
  }

  @Test func recordedByScope() async {
    #expect(await Self.meeting.arrive(), "all three tests were running at once")
    withReferenceImages(
      mode: .all, referenceFolder: URL(fileURLWithPath: "Tests/SwiftTestingTests/Scoped")
    ) {
      assertImage(Shapes.bars([10, 15, 5]), named: "scope")
    }
  }
}

/// Holds each test until all have arrived, so their assertions overlap in time.
actor Meeting {
  private let expected: Int
  private var arrived = 0

  init(expected: Int) { self.expected = expected }

  /// Waits up to 60 seconds for the others; true when all arrived.
  func arrive() async -> Bool {
    arrived += 1
    for _ in 0..<6000 where arrived < expected {
      try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return arrived >= expected
  }
}
