import Foundation
import ReferenceImageTesting

/// A 120×60 dashboard: three bars, a clock in the top right corner and a label.
enum Dashboard {
  /// Where the clock is drawn: the tests ignore it.
  static let clock = IgnoredRegion(x: 88, y: 2, width: 30, height: 10)

  static var changes: Set<String> {
    Set(
      (ProcessInfo.processInfo.environment["MASK_FIXTURE_CHANGE"] ?? "")
        .split(separator: ",").map(String.init))
  }

  static func render() -> RGBAImage {
    let changes = changes
    var image = try! RGBAImage(
      width: 120, height: 60, color: RGBAColor(red: 250, green: 250, blue: 245))
    let level: UInt8 = changes.contains("tint") ? 1 : 0
    for (index, value) in [20, 34, 26].enumerated() {
      let raised = changes.contains("bars") && index == 1 ? 4 : 0
      fill(
        &image, x: 8 + index * 18, y: 55 - value - raised, width: 12, height: value + raised,
        color: RGBAColor(red: 40 + level, green: UInt8(70 + index * 40), blue: 190))
    }
    // The label: two strokes, one pixel further right under MASK_FIXTURE_CHANGE=shift.
    let dx = changes.contains("shift") ? 1 : 0
    fill(
      &image, x: 70 + dx, y: 30, width: 30, height: 2,
      color: RGBAColor(red: 30, green: 30, blue: 30))
    fill(
      &image, x: 70 + dx, y: 36, width: 18, height: 2,
      color: RGBAColor(red: 30, green: 30, blue: 30))
    // The clock: its "digits" are as many dark cells as MASK_FIXTURE_CLOCK says.
    let time = Int(ProcessInfo.processInfo.environment["MASK_FIXTURE_CLOCK"] ?? "") ?? 1
    for cell in 0..<min(time, 7) {
      fill(
        &image, x: 90 + cell * 4, y: 4, width: 3, height: 6,
        color: RGBAColor(red: 10, green: 10, blue: 10))
    }
    return image
  }

  static func fill(
    _ image: inout RGBAImage, x: Int, y: Int, width: Int, height: Int, color: RGBAColor
  ) {
    for row in y..<(y + height) {
      for column in x..<(x + width) { image[column, row] = color }
    }
  }
}
