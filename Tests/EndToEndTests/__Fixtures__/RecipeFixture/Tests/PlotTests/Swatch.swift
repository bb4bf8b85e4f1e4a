import Foundation
import ReferenceImageTesting

/// A 16 × 16 swatch with a dark label stroke across it, one pixel lower when the run stands for
/// linux-arm64 (`IMAGE_REFERENCE_VARIANT`), as that platform's fonts would place it.
func labelledSwatch(_ shade: UInt8, after seconds: Double = 0) -> RGBAImage {
  var image = swatch(shade, after: seconds)
  let row = ProcessInfo.processInfo.environment["IMAGE_REFERENCE_VARIANT"] == "linux-arm64" ? 9 : 8
  for x in 2..<14 { image[x, row] = RGBAColor(red: 0, green: 0, blue: 0) }
  return image
}

/// A 16 × 16 image of one colour, different for every test, after `seconds` of pretend work.
func swatch(_ shade: UInt8, after seconds: Double = 0) -> RGBAImage {
  if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
  // The colour is valid and the size within limits, so this cannot throw.
  return try! RGBAImage(width: 16, height: 16, color: RGBAColor(red: shade, green: 64, blue: 128))
}
