import Foundation
import ReferenceImageTesting
import Testing

/// A 16 × 16 image of one colour, different for every test, after `seconds` of pretend work.
func scene(_ shade: UInt8, after seconds: Double = 0) async throws -> RGBAImage {
  if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) }
  return try RGBAImage(width: 16, height: 16, color: RGBAColor(red: 200, green: shade, blue: 30))
}

/// The scene with a dark label stroke, one pixel lower when the run stands for linux-arm64
/// (`IMAGE_REFERENCE_VARIANT`), as that platform's fonts would place it.
func labelled(_ scene: RGBAImage) -> RGBAImage {
  var image = scene
  let row = ProcessInfo.processInfo.environment["IMAGE_REFERENCE_VARIANT"] == "linux-arm64" ? 9 : 8
  for x in 2..<14 { image[x, row] = RGBAColor(red: 0, green: 0, blue: 0) }
  return image
}

@Test func freeScene() async throws {
  assertImage(try await scene(10, after: 0.3), named: "free")
}

// One test with three cases; its ID has parentheses, which are regular-expression syntax.
@Test(arguments: [1, 2, 3]) func paramScene(n: Int) async throws {
  let image = try await scene(UInt8(20 * n), after: 0.1 * Double(n))
  assertImage(n == 2 ? labelled(image) : image, named: "param-\(n)")
}

@Test func sceneWithoutImage() async throws {
  try await Task.sleep(for: .seconds(0.2))
  #expect("scene".count == 5)
}

@Suite struct Outer {
  @Suite struct Inner {
    @Test func nestedScene() async throws {
      assertImage(try await scene(90, after: 0.7), named: "nested")
    }
  }
}
