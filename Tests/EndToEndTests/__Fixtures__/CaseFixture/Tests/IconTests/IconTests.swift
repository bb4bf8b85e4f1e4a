import Foundation
import ReferenceImageTesting
import Testing

extension Tag {
  @Tag static var icons: Self
}

/// A square of `size` pixels; `CASE_FIXTURE_CHANGE=1` renders every icon in another shade.
func icon(_ size: Int, shade: UInt8 = 40) -> RGBAImage {
  let changed = ProcessInfo.processInfo.environment["CASE_FIXTURE_CHANGE"] == "1"
  let red = changed ? shade &+ 50 : shade
  return try! RGBAImage(
    width: size, height: size, color: RGBAColor(red: red, green: 0, blue: 255 - red))
}

struct Tint: Sendable, CustomTestStringConvertible {
  var name: String
  var shade: UInt8
  var testDescription: String { "tint \(name)" }
}

@Suite(.tags(.icons)) struct IconTests {
  /// The documented pattern: each case names its image after its argument.
  @Test(arguments: [16, 32]) func dotIcon(size: Int) {
    assertImage(icon(size), named: "dot-\(size)")
  }

  /// The mistake a new user makes: every case stores one name. On only with
  /// CASE_FIXTURE_SHARED=1, so that the other tests' runs stay clean.
  @Test(
    .enabled(if: ProcessInfo.processInfo.environment["CASE_FIXTURE_SHARED"] == "1"),
    arguments: [16, 32])
  func sharedDot(size: Int) {
    assertImage(icon(size), named: "shared-dot")
  }

  /// Two cases with equal arguments, each naming its image after them: one name for two
  /// owners. On only with CASE_FIXTURE_SHARED=1.
  @Test(
    .enabled(if: ProcessInfo.processInfo.environment["CASE_FIXTURE_SHARED"] == "1"),
    arguments: [3, 3])
  func twice(n: Int) {
    assertImage(icon(n), named: "twice-\(n)")
  }

  /// Non-ASCII and slashed argument values.
  @Test(arguments: ["café", "設定", "a/b"]) func label(text: String) {
    assertImage(icon(8 + text.count), named: "label-\(text)")
  }

  /// Two arguments, one of a type that describes itself for tests.
  @Test(arguments: [Tint(name: "warm", shade: 200), Tint(name: "cold", shade: 20)], [1, 2])
  func tinted(tint: Tint, scale: Int) {
    assertImage(icon(4 * scale, shade: tint.shade), named: "tint-\(tint.name)-\(scale)")
  }

  /// With CASE_FIXTURE_THROW=1 one case throws before it asserts: it stores nothing, the
  /// other case lands.
  @Test(arguments: [1, 2]) func throwsFirst(n: Int) throws {
    struct Refused: Error {}
    let throwing = ProcessInfo.processInfo.environment["CASE_FIXTURE_THROW"] == "1"
    if throwing && n == 2 { throw Refused() }
    assertImage(icon(6), named: "thrown-\(n)")
  }

  @Test(.disabled("retired")) func retired() {
    assertImage(icon(5), named: "retired")
  }
}
