import CFastDeflate
import CZlib
import Foundation
import ReferenceImageCore
import TestSupport
import XCTest

/// `ri_fast_deflate` and `ri_adler32` against zlib: every stream inflates to its input, in one
/// part or in parts concatenated as `BandedPNGWriter` does, and the checksum equals zlib's.
final class FastDeflateTests: XCTestCase {
  /// Inputs with the shapes that exercise each path: stored, fixed and dynamic blocks, long
  /// runs (matches of 258 at distance 1), matches at the window's edge, several blocks of
  /// symbols, and the short tail after the last probe.
  static func inputs() -> [(String, [UInt8])] {
    var random = SplitMix64(seed: 21)
    func bytes(_ count: Int, _ make: (Int) -> UInt8) -> [UInt8] { (0..<count).map(make) }
    var cases: [(String, [UInt8])] = [("empty", [])]
    for count in [1, 3, 4, 7, 8, 9, 15, 16, 17, 100, 300] {
      cases.append(
        ("noise \(count)", bytes(count) { _ in UInt8(truncatingIfNeeded: random.next()) }))
      cases.append(("zeros \(count)", [UInt8](repeating: 0, count: count)))
    }
    cases += [
      ("noise 200 KiB", bytes(200_000) { _ in UInt8(truncatingIfNeeded: random.next()) }),
      ("three symbols", bytes(150_000) { _ in UInt8(random.next() % 3) }),
      ("sparse", bytes(300_000) { $0 % 7 == 0 ? UInt8(truncatingIfNeeded: random.next()) : 0 }),
      ("zeros 1 MiB", [UInt8](repeating: 0, count: 1 << 20)),
      ("steps", bytes(500_000) { UInt8(truncatingIfNeeded: $0 / 100) }),
      // A 40 KiB pattern repeated: matches just past the 32 KiB window must not be taken.
      (
        "window edge",
        {
          let block = bytes(40_000) { _ in UInt8(truncatingIfNeeded: random.next()) }
          return block + block + block
        }()
      ),
      // Noise then zeros: after the misses the probes thin out, then find the run again.
      (
        "noise then zeros",
        bytes(100_000) { _ in UInt8(truncatingIfNeeded: random.next()) }
          + [UInt8](repeating: 0, count: 100_000)
      ),
    ]
    return cases
  }

  func testDeflate_everyInput_inflatesToItselfWithZlib() throws {
    for (name, input) in Self.inputs() {
      for isLast in [true, false] {
        let stream = deflate(input, isLast: isLast)
        XCTAssertLessThanOrEqual(stream.count, ri_fast_deflate_bound(input.count), name)
        let inflated = try XCTUnwrap(
          inflate(stream, expected: input.count, isFinished: isLast), name)
        XCTAssertTrue(inflated == input, "\(name), last \(isLast): zlib inflated other bytes")
      }
    }
  }

  func testDeflate_partsConcatenate_intoOneStream() throws {
    // As BandedPNGWriter: every part but the last ends on a byte with an empty stored block.
    let parts = Self.inputs().map(\.1).filter { !$0.isEmpty }
    var stream: [UInt8] = []
    for (index, part) in parts.enumerated() {
      stream += deflate(part, isLast: index == parts.count - 1)
    }
    let whole = parts.flatMap { $0 }
    let inflated = try XCTUnwrap(inflate(stream, expected: whole.count, isFinished: true))
    XCTAssertTrue(inflated == whole, "the concatenated parts inflate to the parts in order")
  }

  func testDeflate_compressesRunsAndStoresNoise() {
    let zeros = deflate([UInt8](repeating: 0, count: 1 << 20), isLast: true)
    XCTAssertLessThan(zeros.count, 2_000, "1 MiB of zeros")
    var random = SplitMix64(seed: 5)
    let noise = (0..<100_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    // Stored blocks: 5 bytes of header per 65,535 bytes, so never more than that.
    XCTAssertLessThanOrEqual(deflate(noise, isLast: true).count, noise.count + 12)
  }

  func testAdler32_equalsZlib() {
    var random = SplitMix64(seed: 9)
    let data = (0..<70_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    let ones = [UInt8](repeating: 255, count: 70_000)
    for source in [data, ones] {
      for length in [0, 1, 15, 16, 17, 5535, 5536, 5537, 11_072, 65_536, 70_000] {
        source.withUnsafeBufferPointer { bytes in
          let ours = ri_adler32(1, bytes.baseAddress, length)
          let zlib = adler32_z(1, bytes.baseAddress, length)
          XCTAssertEqual(UInt(ours), zlib, "length \(length)")
          // Continued from a running value, as a caller feeding pieces does.
          let half = length / 2
          let continued = ri_adler32(
            ri_adler32(1, bytes.baseAddress, half), bytes.baseAddress! + half, length - half)
          XCTAssertEqual(continued, ours, "length \(length) in two pieces")
        }
      }
    }
  }

  func testFastEncoding_isReadByPythonsZlib() throws {
    // Another reader than libspng: Python's zlib inflates the image data and undoes the Up
    // filter, for the hard cases of the benchmarks (noise, flat, text-like, screenshot-like).
    let python = "/usr/bin/python3"
    guard FileManager.default.isExecutableFile(atPath: python) else {
      throw XCTSkip("python3 is not installed; Scripts/test installs it")
    }
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("FastDeflateTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    var images = try PNGEncoderTests.variedImages()
    images.append(("screenshot-like", try PNGEncoderTests.screenshotLike()))
    var random = SplitMix64(seed: 3)
    var noise = try RGBAImage(width: 700, height: 700, color: .clear)
    noise.withUnsafeMutablePixelBytes { bytes in
      for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: random.next()) }
    }
    images.append(("noise", noise))
    images.append(("flat", try RGBAImage(width: 1500, height: 900, color: .white)))
    for (index, (_, image)) in images.enumerated() {
      try Data(PNGEncoder(setting: .fast).encode(image)).write(
        to: folder.appendingPathComponent("\(index).png"))
      try Data(image.pixels).write(to: folder.appendingPathComponent("\(index).rgba"))
    }
    let output = try runProcess(python, ["-c", Self.pythonReader, folder.path, "\(images.count)"])
    let text = output.output + output.error
    XCTAssertEqual(output.status, 0, text)
    XCTAssertEqual(text, "\(images.count) images equal\n")
  }

  /// Reads each `N.png` (8-bit RGBA, Up-filtered rows except the first) with zlib and compares
  /// its pixels with `N.rgba`.
  static let pythonReader = """
    import struct, sys, zlib
    folder, count = sys.argv[1], int(sys.argv[2])
    for n in range(count):
        data = open(f"{folder}/{n}.png", "rb").read()
        assert data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", n
        position, idat = 8, b""
        while position < len(data):
            length, kind = struct.unpack(">I4s", data[position:position + 8])
            body = data[position + 8:position + 8 + length]
            crc = struct.unpack(">I", data[position + 8 + length:position + 12 + length])[0]
            assert zlib.crc32(kind + body) == crc, (n, kind)
            if kind == b"IHDR":
                width, height = struct.unpack(">II", body[:8])
            if kind == b"IDAT":
                idat += body
            position += 12 + length
        raw = zlib.decompress(idat)
        stride = width * 4
        assert len(raw) == height * (stride + 1), n
        pixels, above = bytearray(), bytes(stride)
        for y in range(height):
            kind, row = raw[y * (stride + 1)], raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
            if kind == 2:
                row = bytes((a + b) & 255 for a, b in zip(row, above))
            else:
                assert kind == 0 and y == 0, (n, y, kind)
            pixels += row
            above = row
        assert bytes(pixels) == open(f"{folder}/{n}.rgba", "rb").read(), f"image {n} differs"
    print(f"{count} images equal")
    """

  // MARK: Helpers

  private func deflate(_ input: [UInt8], isLast: Bool) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: ri_fast_deflate_bound(input.count))
    let written = input.withUnsafeBufferPointer { input in
      output.withUnsafeMutableBufferPointer { output in
        ri_fast_deflate(input.baseAddress, input.count, isLast ? 1 : 0, output.baseAddress)
      }
    }
    XCTAssertGreaterThan(written, 0)
    return Array(output.prefix(written))
  }

  /// zlib's raw inflate of `stream`; nil when zlib refuses it, when a finished stream does not
  /// end exactly at its last byte, or when an unfinished one does not consume every byte.
  private func inflate(_ stream: [UInt8], expected: Int, isFinished: Bool) -> [UInt8]? {
    var z = z_stream()
    guard ri_inflate_init_raw(&z) == Z_OK else { return nil }
    defer { inflateEnd(&z) }
    var output = [UInt8](repeating: 0, count: expected + 64)
    var input = stream
    let status = input.withUnsafeMutableBufferPointer { input in
      output.withUnsafeMutableBufferPointer { output in
        z.next_in = input.baseAddress
        z.avail_in = uInt(input.count)
        z.next_out = output.baseAddress
        z.avail_out = uInt(output.count)
        return CZlib.inflate(&z, isFinished ? Z_FINISH : Z_SYNC_FLUSH)
      }
    }
    let ended = isFinished ? status == Z_STREAM_END : status == Z_OK
    guard ended, z.avail_in == 0, Int(z.total_out) == expected else { return nil }
    return Array(output.prefix(expected))
  }
}
