import ReferenceImageCore

/// A deterministic noisy image: `seed` decides every pixel, so equal seeds give equal pixels.
public func noiseImage(seed: Int, width: Int = 12, height: Int = 8) throws -> RGBAImage {
  var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
  var pixels = [UInt8](repeating: 255, count: width * height * 4)
  for index in pixels.indices where index % 4 != 3 {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    pixels[index] = UInt8(truncatingIfNeeded: state)
  }
  return try RGBAImage(width: width, height: height, pixels: pixels)
}

/// `image` with `count` pixels (along the first row, then further rows) inverted.
public func changingPixels(_ image: RGBAImage, count: Int) throws -> RGBAImage {
  var pixels = image.pixels
  for pixel in 0..<count {
    for channel in 0..<3 { pixels[pixel * 4 + channel] ^= 0xFF }
  }
  return try RGBAImage(width: image.width, height: image.height, pixels: pixels)
}
