import ChartRenderer
import ReferenceImageTesting
import Testing

/// The same assertion from Swift Testing: every gallery sample, one reference each.
@Suite struct GalleryRenderTests {
  @Test(arguments: Gallery.all.map(\.name))
  func sample(named name: String) throws {
    let render = try #require(Gallery.all.first { $0.name == name }?.render)
    assertImage(try render(), named: name, comparison: .perceptual(threshold: 0.1))
  }
}
