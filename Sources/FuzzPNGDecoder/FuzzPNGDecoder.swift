import Foundation
import FuzzSupport
import ReferenceImageCore

/// A libFuzzer target for `PNGDecoder`: `size(of:)` and `decode` on arbitrary bytes, under small
/// limits. Any input may be refused with a `PNGError`; none may crash, the fast path for 8-bit
/// RGBA and RGB (with its parallel bands, and on two cores as large files of other encoders
/// are decoded) must give exactly what libspng alone gives, pixels or error, and what decodes must agree with its header size and survive an encode-decode round
/// trip unchanged.
///
/// Built with `-Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer` (see `Scripts/fuzz`) it is a
/// libFuzzer binary; in a normal build it is a program that replays files and folders given as
/// arguments through the same checks, so the seed corpus and every past crash stay regression
/// tests.
enum PNGDecoderFuzz {
  /// Small enough that an input declaring a huge image is refused before memory is spent.
  static let decoder = PNGDecoder(
    limits: .init(
      // 4 MiB leaves room for files of two bands or more (1 MiB of filtered rows each).
      maximumWidth: 2048, maximumHeight: 2048, maximumDecodedBytes: 4 << 20,
      maximumChunkBytes: 64 << 10))

  /// Runs one input through the checks; a broken invariant stops the process.
  static func run(_ input: [UInt8]) {
    let size = try? decoder.size(of: input)
    let fast = Result { () throws(PNGError) in try decoder.decode(input, commonCase: true) }
    let libspng = Result { () throws(PNGError) in try decoder.decode(input, commonCase: false) }
    guard fast == libspng else {
      fatalError("the fast path gave \(fast), libspng alone \(libspng)")
    }
    let twoCores = Result { () throws(PNGError) in
      try decoder.decode(input, commonCase: true, twoCores: true)
    }
    guard twoCores == libspng else {
      fatalError("the fast path on two cores gave \(twoCores), libspng alone \(libspng)")
    }
    guard case .success(let image) = fast else { return }
    guard let size, size == (image.width, image.height) else {
      fatalError(
        "decode gave \(image.width)×\(image.height), size(of:) said \(String(describing: size))")
    }
    guard image.pixels.count == image.width * image.height * 4 else {
      fatalError("\(image.pixels.count) pixel bytes for \(image.width)×\(image.height)")
    }
    let encoded: [UInt8]
    do {
      encoded = try PNGEncoder().encode(image)
    } catch {
      fatalError("a decoded image does not encode: \(error)")
    }
    guard (try? decoder.decode(encoded)) == image else {
      fatalError("the encode-decode round trip changed the pixels")
    }
  }
}

#if FUZZING
  /// Starts libFuzzer on this target's checks (see `FuzzSupport.runLibFuzzer`).
  @_cdecl("FuzzPNGDecoder_main")
  public func fuzzerMain(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  ) -> CInt {
    FuzzSupport.runLibFuzzer(argc, argv, PNGDecoderFuzz.run)
  }
#else
  @main
  struct FuzzPNGDecoderReplay {
    /// Replays every file given, and every file directly inside every folder given.
    static func main() {
      FuzzSupport.replay(
        Array(CommandLine.arguments.dropFirst()), target: "FuzzPNGDecoder", PNGDecoderFuzz.run)
    }

  }
#endif
