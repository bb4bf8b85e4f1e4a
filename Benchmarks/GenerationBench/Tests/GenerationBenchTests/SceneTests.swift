import Foundation
import ReferenceImageTesting
import XCTest

/// 100 test methods × 20 renders of 800×600, the workload Scripts/benchmark-generation times in
/// generation and verify mode. The methods are spelled out because XCTest on Linux finds tests
/// at build time.
final class SceneTests: XCTestCase {
  private static let environment = ProcessInfo.processInfo.environment

  /// `GENERATION_BENCH_IMAGES_PER_TEST`: renders per test method, 20 unless given.
  static let imagesPerTest =
    environment["GENERATION_BENCH_IMAGES_PER_TEST"].flatMap { Int($0) }
    ?? 20

  /// `GENERATION_BENCH_CHANGED_PERCENT`: the first this many of the 100 tests render other
  /// scenes than the references hold, as after a change to the code under test.
  static let changedTests =
    environment["GENERATION_BENCH_CHANGED_PERCENT"].flatMap { Int($0) }
    ?? 0

  /// `GENERATION_BENCH_GENERATION=g`: the g-th of a series of regenerations that each change a
  /// fifth of the tests in turn (tests 0–19 at 1, 6, 11…; 20–39 at 2, 7, 12…): a test renders
  /// the scenes of the last regeneration that changed it, so each one changes 20% of the images
  /// against the one before. Scripts/benchmark-store commits the series to git.
  static let generation =
    environment["GENERATION_BENCH_GENERATION"].flatMap { Int($0) }
    ?? 0

  /// The seed offset of a test's scenes in `generation`: 0 until its fifth is first changed.
  static func generationVariant(_ test: Int) -> Int {
    let first = test * 5 / 100 + 1
    guard generation >= first else { return 0 }
    return (first + (generation - first) / 5 * 5) * 1_000_000
  }

  /// `GENERATION_BENCH_SCENES=hard`: each test's images take turns among a screenshot, noise,
  /// a flat image and text, the encoder's hard cases; otherwise every image is a screenshot.
  static let kinds: [Scene.Kind] =
    environment["GENERATION_BENCH_SCENES"] == "hard" ? Scene.Kind.allCases : [.screenshot]

  /// `GENERATION_BENCH_SIZES=mixed`: the images take turns among `Scene.mixedSizes`; otherwise
  /// every image is 800 × 600.
  static let sizes =
    environment["GENERATION_BENCH_SIZES"] == "mixed" ? Scene.mixedSizes : [(800, 600)]

  /// `GENERATION_BENCH_RENDER_ONLY=1`: render every image and assert nothing, the baseline a
  /// verify run is measured against (the same binary, the same renders).
  static let rendersOnly = environment["GENERATION_BENCH_RENDER_ONLY"] == "1"

  /// One byte of every render, so that rendering without asserting is not optimised away.
  nonisolated(unsafe) static var renderedBytes = 0

  private func renderBatch(_ test: Int) {
    let variant = (test < Self.changedTests ? 500_000 : 0) + Self.generationVariant(test)
    for image in 0..<Self.imagesPerTest {
      let name = String(format: "t%03d/i%02d", test, image)
      let kind = Self.kinds[image % Self.kinds.count]
      let size = Self.sizes[(test + image) % Self.sizes.count]
      let render = Scene.render(
        seed: variant + test * 1000 + image, kind: kind, width: size.0, height: size.1)
      if Self.rendersOnly {
        Self.renderedBytes &+= Int(render.pixels[render.pixels.count / 2])
      } else {
        assertImage(render, named: name)
      }
    }
  }

  func test000() { renderBatch(0) }
  func test001() { renderBatch(1) }
  func test002() { renderBatch(2) }
  func test003() { renderBatch(3) }
  func test004() { renderBatch(4) }
  func test005() { renderBatch(5) }
  func test006() { renderBatch(6) }
  func test007() { renderBatch(7) }
  func test008() { renderBatch(8) }
  func test009() { renderBatch(9) }
  func test010() { renderBatch(10) }
  func test011() { renderBatch(11) }
  func test012() { renderBatch(12) }
  func test013() { renderBatch(13) }
  func test014() { renderBatch(14) }
  func test015() { renderBatch(15) }
  func test016() { renderBatch(16) }
  func test017() { renderBatch(17) }
  func test018() { renderBatch(18) }
  func test019() { renderBatch(19) }
  func test020() { renderBatch(20) }
  func test021() { renderBatch(21) }
  func test022() { renderBatch(22) }
  func test023() { renderBatch(23) }
  func test024() { renderBatch(24) }
  func test025() { renderBatch(25) }
  func test026() { renderBatch(26) }
  func test027() { renderBatch(27) }
  func test028() { renderBatch(28) }
  func test029() { renderBatch(29) }
  func test030() { renderBatch(30) }
  func test031() { renderBatch(31) }
  func test032() { renderBatch(32) }
  func test033() { renderBatch(33) }
  func test034() { renderBatch(34) }
  func test035() { renderBatch(35) }
  func test036() { renderBatch(36) }
  func test037() { renderBatch(37) }
  func test038() { renderBatch(38) }
  func test039() { renderBatch(39) }
  func test040() { renderBatch(40) }
  func test041() { renderBatch(41) }
  func test042() { renderBatch(42) }
  func test043() { renderBatch(43) }
  func test044() { renderBatch(44) }
  func test045() { renderBatch(45) }
  func test046() { renderBatch(46) }
  func test047() { renderBatch(47) }
  func test048() { renderBatch(48) }
  func test049() { renderBatch(49) }
  func test050() { renderBatch(50) }
  func test051() { renderBatch(51) }
  func test052() { renderBatch(52) }
  func test053() { renderBatch(53) }
  func test054() { renderBatch(54) }
  func test055() { renderBatch(55) }
  func test056() { renderBatch(56) }
  func test057() { renderBatch(57) }
  func test058() { renderBatch(58) }
  func test059() { renderBatch(59) }
  func test060() { renderBatch(60) }
  func test061() { renderBatch(61) }
  func test062() { renderBatch(62) }
  func test063() { renderBatch(63) }
  func test064() { renderBatch(64) }
  func test065() { renderBatch(65) }
  func test066() { renderBatch(66) }
  func test067() { renderBatch(67) }
  func test068() { renderBatch(68) }
  func test069() { renderBatch(69) }
  func test070() { renderBatch(70) }
  func test071() { renderBatch(71) }
  func test072() { renderBatch(72) }
  func test073() { renderBatch(73) }
  func test074() { renderBatch(74) }
  func test075() { renderBatch(75) }
  func test076() { renderBatch(76) }
  func test077() { renderBatch(77) }
  func test078() { renderBatch(78) }
  func test079() { renderBatch(79) }
  func test080() { renderBatch(80) }
  func test081() { renderBatch(81) }
  func test082() { renderBatch(82) }
  func test083() { renderBatch(83) }
  func test084() { renderBatch(84) }
  func test085() { renderBatch(85) }
  func test086() { renderBatch(86) }
  func test087() { renderBatch(87) }
  func test088() { renderBatch(88) }
  func test089() { renderBatch(89) }
  func test090() { renderBatch(90) }
  func test091() { renderBatch(91) }
  func test092() { renderBatch(92) }
  func test093() { renderBatch(93) }
  func test094() { renderBatch(94) }
  func test095() { renderBatch(95) }
  func test096() { renderBatch(96) }
  func test097() { renderBatch(97) }
  func test098() { renderBatch(98) }
  func test099() { renderBatch(99) }
}
