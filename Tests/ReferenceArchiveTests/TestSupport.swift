import Foundation
import ReferenceImageCore
import TestSupport
import XCTest

/// The path of a tool, or a skip naming the package to install.
func tool(_ name: String, package: String) throws -> String {
  for folder in ["/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin"] {
    let path = "\(folder)/\(name)"
    if FileManager.default.isExecutableFile(atPath: path) { return path }
  }
  throw XCTSkip("\(name) is not installed; apt-get install \(package)")
}

/// A small PNG with a colour that identifies it.
func samplePNG(_ shade: UInt8, width: Int = 8, height: Int = 6) throws -> [UInt8] {
  var image = try RGBAImage(width: width, height: height, color: .white)
  image[1, 1] = RGBAColor(red: shade, green: 255 &- shade, blue: 40)
  return try PNGEncoder().encode(image)
}
