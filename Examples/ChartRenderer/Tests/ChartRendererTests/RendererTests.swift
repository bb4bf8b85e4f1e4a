import ChartRenderer
import ReferenceImageCore
import XCTest

final class RendererTests: XCTestCase {
  func testGallery_rendersTwice_byteIdentical() throws {
    for (name, render) in Gallery.all {
      let first = try render()
      let second = try render()
      XCTAssertEqual(first.pixels, second.pixels, "\(name) differs between two renders")
    }
  }

  func testBarChart_hasRequestedSize() throws {
    let image = try BarChart(title: "", values: [1, 2], labels: [], width: 320, height: 200)
      .render()
    XCTAssertEqual([image.width, image.height], [320, 200])
  }

  func testBarChart_invalidSize_throws() {
    XCTAssertThrowsError(try BarChart(title: "", values: [1], labels: [], width: 0).render())
  }

  func testThemes_giveDifferentPixels() throws {
    let light = try Gallery.weeklyBuilds(theme: .light).render()
    let dark = try Gallery.weeklyBuilds(theme: .dark).render()
    XCTAssertNotEqual(light.pixels, dark.pixels)
  }

  func testBadge_widthFollowsText_andCornersAreTransparent() throws {
    let badge = try Badge(label: "ci", value: "ok", scale: 1).render()
    // Two texts of two characters, each with 6 pixels of padding on both sides.
    XCTAssertEqual(badge.width, 2 * (BitmapFont.width(of: "ok") + 12))
    XCTAssertEqual(badge[0, 0].alpha, 0)
    XCTAssertEqual(badge[badge.width / 2, badge.height / 2].alpha, 255)
  }

  func testEmptyCharts_render() throws {
    XCTAssertNoThrow(try BarChart(title: "Empty", values: [], labels: []).render())
    XCTAssertNoThrow(try LineChart(title: "", categories: [], series: []).render())
    XCTAssertNoThrow(try PieChart(title: "", slices: []).render())
  }
}
