import Foundation
import ReferenceImageTesting

/// A 16 × 16 image of one colour, different for every test, after `seconds` of pretend work.
func swatch(_ shade: UInt8, after seconds: Double = 0) -> RGBAImage {
  if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
  // The colour is valid and the size within limits, so this cannot throw.
  return try! RGBAImage(width: 16, height: 16, color: RGBAColor(red: shade, green: 64, blue: 128))
}
