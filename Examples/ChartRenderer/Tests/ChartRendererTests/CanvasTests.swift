import ChartRenderer
import ReferenceImageCore
import XCTest

final class CanvasTests: XCTestCase {
  private let blue = RGBAColor(red: 0, green: 0, blue: 255)

  func testFillRect_wholePixels_coversExactlyItsPixels() throws {
    var canvas = try Canvas(width: 10, height: 8, background: .white)
    canvas.fillRect(Rect(x: 2, y: 3, width: 4, height: 2), .solid(blue))
    for y in 0..<8 {
      for x in 0..<10 {
        let inside = (2..<6).contains(x) && (3..<5).contains(y)
        XCTAssertEqual(canvas.image[x, y], inside ? blue : .white, "pixel (\(x), \(y))")
      }
    }
  }

  func testFillRect_halfPixelEdge_blendsHalf() throws {
    var canvas = try Canvas(width: 4, height: 1, background: .white)
    canvas.fillRect(Rect(x: 0, y: 0, width: 1.5, height: 1), .solid(.black))
    XCTAssertEqual(canvas.image[0, 0], .black)
    // Half of white plus half of black, rounded half up.
    XCTAssertEqual(canvas.image[1, 0], RGBAColor(red: 128, green: 128, blue: 128))
    XCTAssertEqual(canvas.image[2, 0], .white)
  }

  func testFillCircle_centreIsFullAndEdgeIsPartial() throws {
    var canvas = try Canvas(width: 21, height: 21)
    canvas.fillCircle(center: Point(x: 10.5, y: 10.5), radius: 8, .solid(blue))
    XCTAssertEqual(canvas.image[10, 10], blue)
    // The pixel centre at (18.5, 10.5) lies exactly on the edge: half coverage.
    XCTAssertEqual(canvas.image[18, 10].alpha, 128)
    XCTAssertEqual(canvas.image[0, 0], .clear)
    let edge = (0..<21).map { canvas.image[$0, 3].alpha }
    XCTAssertTrue(edge.contains { $0 > 0 && $0 < 255 }, "an anti-aliased row has partial pixels")
  }

  func testTranslucentFill_overTransparent_keepsStraightColour() throws {
    var canvas = try Canvas(width: 1, height: 1)
    canvas.fillRect(Rect(x: 0, y: 0, width: 1, height: 1), .solid(blue.withAlpha(100)))
    // Straight alpha: the colour stays pure blue, only the alpha is partial.
    XCTAssertEqual(canvas.image[0, 0], RGBAColor(red: 0, green: 0, blue: 255, alpha: 100))
  }

  func testClipRect_leavesOutsidePixelsUntouched() throws {
    var canvas = try Canvas(width: 6, height: 1, background: .white)
    canvas.clipRect = Rect(x: 2, y: 0, width: 2, height: 1)
    canvas.fillRect(Rect(x: 0, y: 0, width: 6, height: 1), .solid(.black))
    XCTAssertEqual(
      (0..<6).map { canvas.image[$0, 0] }, [.white, .white, .black, .black, .white, .white])
  }

  func testStrokeLine_horizontal_coversItsWidth() throws {
    var canvas = try Canvas(width: 20, height: 9)
    canvas.strokeLine(
      from: Point(x: 4, y: 4.5), to: Point(x: 16, y: 4.5), lineWidth: 3, .solid(blue))
    XCTAssertEqual(canvas.image[10, 4].alpha, 255)
    XCTAssertEqual(canvas.image[10, 3].alpha, 255)
    XCTAssertEqual(canvas.image[10, 1].alpha, 0)
    XCTAssertEqual(canvas.image[10, 7].alpha, 0)
  }

  func testTranslucentPolyline_joinBlendsOnce() throws {
    var canvas = try Canvas(width: 20, height: 20)
    let points = [Point(x: 2, y: 10.5), Point(x: 10.5, y: 10.5), Point(x: 10.5, y: 2)]
    canvas.strokePolyline(points, lineWidth: 3, .solid(blue.withAlpha(128)))
    // The corner pixel lies under both segments yet blends once.
    XCTAssertEqual(canvas.image[10, 10].alpha, 128)
    XCTAssertEqual(canvas.image[5, 10].alpha, 128)
  }

  func testLinearGradient_interpolatesBetweenEnds() throws {
    var canvas = try Canvas(width: 11, height: 1)
    let gradient = LinearGradient(
      start: Point(x: 0.5, y: 0), end: Point(x: 10.5, y: 0), from: .black, to: .white)
    canvas.fillRect(Rect(x: 0, y: 0, width: 11, height: 1), .linearGradient(gradient))
    XCTAssertEqual(canvas.image[0, 0], .black)
    XCTAssertEqual(canvas.image[5, 0], RGBAColor(red: 128, green: 128, blue: 128))
    XCTAssertEqual(canvas.image[10, 0], .white)
  }

  func testFillWedge_quarter_coversOnlyItsQuadrant() throws {
    var canvas = try Canvas(width: 40, height: 40)
    canvas.fillWedge(center: Point(x: 20, y: 20), radius: 15, from: 0, to: 0.25, .solid(blue))
    XCTAssertEqual(canvas.image[28, 12].alpha, 255, "top right is inside")
    XCTAssertEqual(canvas.image[12, 12].alpha, 0, "top left is outside")
    XCTAssertEqual(canvas.image[28, 28].alpha, 0, "bottom right is outside")
  }
}
