import ChartRenderer
import ReferenceImageCore
import XCTest

final class BitmapFontTests: XCTestCase {
  func testWidth_nCharacters_isAdvancesWithoutTrailingGap() {
    XCTAssertEqual(BitmapFont.width(of: ""), 0)
    XCTAssertEqual(BitmapFont.width(of: "A"), 5)
    XCTAssertEqual(BitmapFont.width(of: "Chart"), 5 * 6 - 1)
    XCTAssertEqual(BitmapFont.width(of: "Chart", scale: 3), (5 * 6 - 1) * 3)
  }

  func testDrawText_inksExactlyTheMeasuredWidth() throws {
    var canvas = try Canvas(width: 40, height: 12)
    canvas.drawText("HIM", at: Point(x: 2, y: 2), color: .black)
    let inked = (0..<40).filter { x in (0..<12).contains { canvas.image[x, $0].alpha > 0 } }
    XCTAssertEqual(inked.first, 2)
    XCTAssertEqual(inked.last, 2 + BitmapFont.width(of: "HIM") - 1)
  }

  func testDrawText_rightAligned_endsAtThePoint() throws {
    var canvas = try Canvas(width: 40, height: 12)
    canvas.drawText("10", at: Point(x: 30, y: 2), alignment: .right, color: .black)
    let inked = (0..<40).filter { x in (0..<12).contains { canvas.image[x, $0].alpha > 0 } }
    XCTAssertEqual(inked.last, 29)
  }

  func testRows_everyPrintableASCIICharacterHasAGlyph() {
    let missing = BitmapFont.rows(for: "\u{2603}")
    for scalar in 0x21...0x7E where scalar != 0x5C && scalar != 0x7B && scalar != 0x7D {
      let character = Character(Unicode.Scalar(UInt8(scalar)))
      XCTAssertNotEqual(BitmapFont.rows(for: character), missing, "no glyph for \(character)")
      XCTAssertEqual(BitmapFont.rows(for: character).count, BitmapFont.lineHeight)
    }
  }
}
