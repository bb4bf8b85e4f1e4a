import Foundation
import ReferenceImageTesting
import Testing

/// A test meant to fail: it looks up a URL nobody stubbed. It runs only when
/// `RENDER_FIXTURE_UNSTUBBED=1` (RemoteImageEndToEndTests sets it); otherwise Swift Testing skips
/// it, so the other end-to-end runs see no new test, failure or image.
@Suite struct UnstubbedImage {
  @Test(.enabled(if: ProcessInfo.processInfo.environment["RENDER_FIXTURE_UNSTUBBED"] == "1"))
  func unstubbedURL() {
    let images = StubImageLoader()
    images.stub(URL(string: "https://images.example.com/stubbed.png")!, color: .white)
    let loader = images.loader()
    let image = loader.cached(URL(string: "https://images.example.com/not-stubbed.png")!)
    #expect(image?[0, 0] == StubImageLoader.placeholderColor)
  }
}
