import Foundation
import ReferenceImageCore

/// Draws simple scenes. `RENDER_FIXTURE_CHANGE=bars` raises the second bar of every bar chart by 3 pixels, standing in for a change to
/// the renderer, so tests can see verification fail without recompiling; `random` paints 48
/// random bits into the first pixels of every bar chart, a render that differs on every run;
/// `tint` makes every badge and bar 2 levels redder, as another platform's colour rounding would.
public enum Shapes {
  public static var change: String {
    ProcessInfo.processInfo.environment["RENDER_FIXTURE_CHANGE"] ?? ""
  }

  public static func badge(width: Int, color: RGBAColor) -> RGBAImage {
    var image = try! RGBAImage(width: width, height: 20, color: .white)
    fill(&image, x: 2, y: 2, width: width - 4, height: 16, color: tinted(color))
    return image
  }

  public static func bars(_ values: [Int]) -> RGBAImage {
    var image = try! RGBAImage(
      width: 120, height: 80, color: RGBAColor(red: 250, green: 250, blue: 245))
    for (index, value) in values.enumerated() {
      let shift = change == "bars" && index == 1 ? 3 : 0
      fill(
        &image, x: 10 + index * 20, y: 75 - value - shift, width: 12, height: value + shift,
        color: tinted(RGBAColor(red: 40, green: UInt8(60 + index * 30), blue: 200)))
    }
    if change == "random" {
      for x in 0..<2 {
        image[x, 0] = RGBAColor(
          red: .random(in: 0...255), green: .random(in: 0...255), blue: .random(in: 0...255))
      }
    }
    return image
  }

  public static func checker(size: Int, cell: Int) -> RGBAImage {
    var image = try! RGBAImage(width: size, height: size, color: .white)
    for y in 0..<size {
      for x in 0..<size where (x / cell + y / cell) % 2 == 0 {
        image[x, y] = RGBAColor(red: 20, green: 20, blue: 20)
      }
    }
    return image
  }

  static func tinted(_ color: RGBAColor) -> RGBAColor {
    guard change == "tint" else { return color }
    return RGBAColor(
      red: color.red > 253 ? color.red - 2 : color.red + 2, green: color.green, blue: color.blue,
      alpha: color.alpha)
  }

  static func fill(
    _ image: inout RGBAImage, x: Int, y: Int, width: Int, height: Int, color: RGBAColor
  ) {
    for row in max(y, 0)..<min(y + height, image.height) {
      for column in max(x, 0)..<min(x + width, image.width) {
        image[column, row] = color
      }
    }
  }
}
