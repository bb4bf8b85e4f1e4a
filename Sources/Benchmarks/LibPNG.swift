import CLibPNG

/// libpng through its simplified `png_image` API: the baseline our libspng-based codec is
/// measured against. The simplified API reports errors in `png_image.message` instead of
/// `longjmp`ing, so no C jump crosses a Swift frame.
enum LibPNG {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// Decodes PNG bytes to RGBA8 with `png_image_begin_read_from_memory` and
  /// `png_image_finish_read` (`PNG_FORMAT_RGBA`).
  /// - Parameter data: The PNG file's bytes.
  /// - Returns: Width, height and tightly packed RGBA bytes.
  /// - Throws: `Failure` with libpng's message.
  static func decode(_ data: [UInt8]) throws -> (width: Int, height: Int, pixels: [UInt8]) {
    var image = png_image()
    image.version = UInt32(PNG_IMAGE_VERSION)
    // Frees whatever libpng still holds after an error; harmless after a successful finish.
    defer { png_image_free(&image) }
    let begun = data.withUnsafeBytes { bytes in
      png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count)
    }
    guard begun != 0 else { throw Failure(description: message(of: image)) }
    image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
    let width = Int(image.width)
    let height = Int(image.height)
    let stride = width * 4
    var pixels = [UInt8](repeating: 0, count: stride * height)
    let finished = pixels.withUnsafeMutableBytes { buffer in
      png_image_finish_read(&image, nil, buffer.baseAddress, Int32(stride), nil)
    }
    guard finished != 0 else { throw Failure(description: message(of: image)) }
    return (width, height, pixels)
  }

  /// Encodes RGBA8 with `png_image_write_to_memory`: libpng's defaults, zlib level 6 and
  /// adaptive filtering, which is what most tools write.
  /// - Parameters:
  ///   - pixels: Tightly packed RGBA bytes.
  ///   - width: The width in pixels.
  ///   - height: The height in pixels.
  /// - Returns: The PNG file's bytes.
  /// - Throws: `Failure` with libpng's message.
  static func encode(_ pixels: [UInt8], width: Int, height: Int) throws -> [UInt8] {
    var image = png_image()
    image.version = UInt32(PNG_IMAGE_VERSION)
    image.width = UInt32(width)
    image.height = UInt32(height)
    image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
    defer { png_image_free(&image) }
    // Room for incompressible data plus filter bytes and chunk overhead, so one pass suffices
    // (asking libpng for the size first would compress twice).
    var capacity = pixels.count + pixels.count / 64 + height + 4096
    var output = [UInt8](repeating: 0, count: capacity)
    let written = output.withUnsafeMutableBytes { memory in
      pixels.withUnsafeBytes { source in
        png_image_write_to_memory(
          &image, memory.baseAddress, &capacity, 0, source.baseAddress, Int32(width * 4), nil)
      }
    }
    guard written != 0 else { throw Failure(description: message(of: image)) }
    output.removeSubrange(capacity...)
    return output
  }

  private static func message(of image: png_image) -> String {
    withUnsafeBytes(of: image.message) { bytes in
      let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      return text.isEmpty ? "libpng failed without a message" : text
    }
  }
}
