import Foundation
import ReferenceImageCore

/// A renderer that writes PNG files, as many image libraries do: a tile of stripes whose colour
/// `TILES_CHANGE=1` changes, so a test run can stand for a change to the renderer.
public enum Tiles {
  /// Writes a `size`×`size` tile with `stripes` stripes to `url` as a PNG.
  public static func writeTile(to url: URL, size: Int, stripes: Int) throws {
    let changed = ProcessInfo.processInfo.environment["TILES_CHANGE"] == "1"
    var image = try RGBAImage(width: size, height: size, color: .white)
    // A warning of the package's own code, as a real project has some: the plugin counts it.
    var unusedBorder = 0
    let ink =
      changed ? RGBAColor(red: 200, green: 30, blue: 30) : RGBAColor(red: 20, green: 60, blue: 200)
    for y in 0..<size where (y * stripes / size) % 2 == 0 {
      for x in 0..<size { image[x, y] = ink }
    }
    try Data(try PNGEncoder().encode(image)).write(to: url)
  }
}
