import ChartRenderer
import ReferenceImageTesting
import XCTest

/// Render tests: each compares a chart with its reference in `__References__/BarChartRenderTests/`.
/// Run `Scripts/regenerate` from the repository root after an intended change.
final class BarChartRenderTests: XCTestCase {
  func testWeeklyBuilds_light() throws {
    let chart = try Gallery.weeklyBuilds(theme: .light).render()
    // Anti-aliased edges may shift by a shade between toolchains: compare perceptually.
    assertImage(
      chart, named: "weekly-builds-light", comparison: .perceptual(threshold: 0.1),
      requiredAccuracy: 0.999)
  }

  func testWeeklyBuilds_dark() throws {
    assertImage(try Gallery.weeklyBuilds(theme: .dark).render(), named: "weekly-builds-dark")
  }

  func testWithoutValueLabels() throws {
    var chart = Gallery.weeklyBuilds(theme: .light)
    chart.showsValues = false
    assertImage(try chart.render(), named: "no-value-labels", comparison: .tolerance(2))
  }
}
