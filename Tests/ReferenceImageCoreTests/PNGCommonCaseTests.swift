import CZlib
import Foundation
import XCTest

@testable import ReferenceImageCore

/// The fast path for 8-bit RGBA and RGB (`PNGDecoder.decodeCommonCase`) against libspng alone,
/// which decoded every file before it: the same pixels for every file, the same error for
/// every refused one.
final class PNGCommonCaseTests: XCTestCase {
  func testDecode_everyFixture_sameAsLibspngAlone() throws {
    var files: [URL] = []
    for folder in ["png", "malformed", "fuzz", "perceptual", "banded"] {
      let url = CoreFixtures.directory.appendingPathComponent(folder)
      let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
      files += names.filter { !$0.hasSuffix(".json") && !$0.hasSuffix(".rgba") }.map {
        url.appendingPathComponent($0)
      }
    }
    XCTAssertGreaterThan(files.count, 60)
    for file in files {
      try Self.assertSameAsLibspng([UInt8](Data(contentsOf: file)), file.lastPathComponent)
    }
  }

  func testDecode_everyFilterTypeAndSplitImageData_givesThePixels() throws {
    var generator = SplitMix64(seed: 30)
    for channels in [3, 4] {
      // Widths 2 and 3 and runs of Paeth rows of both parities: the unfiltering of Paeth
      // rows in pairs and its edges.
      for (width, height) in [(1, 1), (1, 9), (2, 6), (3, 5), (5, 3), (17, 23), (300, 40)] {
        let image = Self.randomImage(width: width, height: height, using: &generator)
        for filters: [UInt8] in [[0], [1], [2], [3], [4], [0, 1, 2, 3, 4], [4, 4, 4, 2, 4, 4]] {
          let png = Self.png(image, channels: channels, filters: filters, idatSize: 97)
          let name = "\(width)×\(height), \(channels) channels, filters \(filters)"
          let decoded = try XCTUnwrap(
            png.withUnsafeBytes { Self.fastPath($0) }, name)
          XCTAssertEqual(decoded.pixels, Self.expected(image, channels: channels), name)
          try Self.assertSameAsLibspng(png, name)
        }
      }
    }
  }

  func testDecodeOnTwoCores_everyFilterPatternAndSplit_givesThePixels() throws {
    var generator = SplitMix64(seed: 33)
    // Narrow, tall images put the split row more than a row's bytes in, so the second half's
    // pixels land over several of the first half's filtered rows, which are carried out first.
    let sizes = [(1, 1), (1, 2), (2, 3), (1, 64), (2, 100), (3, 77), (17, 23), (300, 40)]
    let patterns: [[UInt8]] = [
      [0], [1], [2], [3], [4], [0, 1, 2, 3, 4], [2, 2, 2, 1], [3, 4, 0], [4, 3, 2, 1],
      // No row reads nothing above: unfiltered in one piece.
      [4, 4, 4, 2, 4, 4],
    ]
    for (width, height) in sizes {
      let image = Self.randomImage(width: width, height: height, using: &generator)
      for filters in patterns {
        for idatSize in [97, 1 << 20] {
          let png = Self.png(image, channels: 4, filters: filters, idatSize: idatSize)
          let name = "\(width)×\(height), filters \(filters), IDAT of \(idatSize)"
          let decoded = try XCTUnwrap(Self.fastPath(png, twoCores: true), name)
          XCTAssertEqual(decoded.pixels, Self.expected(image, channels: 4), name)
          try Self.assertSameAsLibspng(png, name, twoCores: true)
        }
      }
    }
  }

  func testDecode_damagedCommonCaseFiles_sameOutcomeAsLibspngAlone() throws {
    var generator = SplitMix64(seed: 31)
    let image = Self.randomImage(width: 40, height: 30, using: &generator)
    for channels in [3, 4] {
      let png = Self.png(image, channels: channels, filters: [0, 1, 2, 3, 4], idatSize: 500)
      for trial in 0..<400 {
        var damaged = png
        switch trial % 4 {
        case 0:
          let index = Int.random(in: 8..<damaged.count, using: &generator)
          damaged[index] ^= UInt8.random(in: 1...255, using: &generator)
        case 1:
          damaged.removeLast(Int.random(in: 1..<damaged.count - 8, using: &generator))
        default:
          // Damage inside the image data with its CRC recomputed, so the zlib stream and the
          // filter bytes are what is judged.
          damaged = Self.png(
            image, channels: channels, filters: [0, 1, 2, 3, 4], idatSize: 500,
            damage: { stream in
              let index = Int.random(in: 0..<stream.count, using: &generator)
              stream[index] ^= UInt8.random(in: 1...255, using: &generator)
            })
        }
        try Self.assertSameAsLibspng(damaged, "\(channels) channels, trial \(trial)")
        if channels == 4 {
          try Self.assertSameAsLibspng(damaged, "two cores, trial \(trial)", twoCores: true)
        }
      }
    }
  }

  func testDecode_chunksAfterImageData_judgedAsLibspngJudgesThem() throws {
    var generator = SplitMix64(seed: 32)
    let image = Self.randomImage(width: 30, height: 20, using: &generator)
    let text = Self.chunk("tEXt", Array("date:create\u{0}2026-01-01T00:00:00".utf8))
    var badCRC = text
    badCRC[badCRC.count - 1] ^= 1
    let trailers: [(String, [UInt8])] = [
      ("tEXt (ImageMagick's dates)", text + text),
      ("tEXt with an empty keyword", Self.chunk("tEXt", Array("\u{0}value".utf8))),
      ("tEXt with a bad CRC", badCRC),
      ("PLTE after the image data", Self.chunk("PLTE", [0, 0, 0])),
      ("a second IHDR", Self.chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])),
      ("an unknown critical chunk", Self.chunk("ABCD", [1])),
      ("IDAT after tEXt", text + Self.chunk("IDAT", [])),
      ("a private ancillary chunk", Self.chunk("prVt", [1, 2, 3])),
    ]
    for channels in [3, 4] {
      let png = Self.png(image, channels: channels, filters: [0, 1, 2, 3, 4], idatSize: 300)
      let iend = png.count - 12
      for (name, trailer) in trailers {
        let file = Array(png[..<iend]) + trailer + png[iend...]
        try Self.assertSameAsLibspng(file, "\(channels) channels, \(name)")
      }
      let valid = Array(png[..<iend]) + text + png[iend...]
      XCTAssertNotNil(valid.withUnsafeBytes { Self.fastPath($0) })
    }
  }

  func testDecode_ownBandedFiles_inflateBandsInParallelOnlyWithATrueDirectory() throws {
    var generator = SplitMix64(seed: 33)
    let noise = Self.randomImage(width: 700, height: 900, using: &generator)
    var gradient = try RGBAImage(width: 2000, height: 600, color: .white)
    for y in 0..<600 where y % 7 != 0 {
      for x in stride(from: 0, to: 2000, by: 3) {
        gradient[x, y] = RGBAColor(red: UInt8(x % 256), green: UInt8(y % 256), blue: 90)
      }
    }
    var tall = try RGBAImage(width: 64, height: 16384, color: RGBAColor(red: 9, green: 8, blue: 7))
    tall[3, 9000] = .white
    for (name, image) in [("noise", noise), ("tall", tall), ("gradient", gradient)] {
      let png = try PNGEncoder().encode(image)
      let directory = try XCTUnwrap(Self.directory(of: png), "\(name): no band directory")
      XCTAssertGreaterThanOrEqual(directory.offsets.count, 2, name)
      let sequential = try XCTUnwrap(Self.inflatedBySequentialZlib(png), name)
      XCTAssertEqual(Self.inflatedBands(png, image.width, directory), sequential, name)
      XCTAssertEqual(try PNGDecoder().decode(png), image, name)
      try Self.assertSameAsLibspng(png, name)
      // Wrong directories: a band that does not end on a block boundary exactly at the next
      // one's start is refused, and the file decodes sequentially. Some wrong offsets still
      // cut the stream at block boundaries (five bytes early, before the empty stored block,
      // when the band's last block ended on a byte boundary; two bands read as one): those
      // bands are inflated, and must give exactly the sequential inflate's bytes.
      var forgeries: [(String, PNGBandDirectory)] = []
      for band in 1..<directory.offsets.count {
        for shift in [-5, -4, -1, 1, 5] {
          var forged = directory
          forged.offsets[band] += shift
          forgeries.append(("band \(band) moved by \(shift)", forged))
        }
      }
      var rows = directory
      rows.rowsPerBand += 1
      forgeries.append(("one more row per band", rows))
      var merged = directory
      merged.offsets = stride(from: 0, to: directory.offsets.count, by: 2).map {
        directory.offsets[$0]
      }
      merged.rowsPerBand *= 2
      forgeries.append(("pairs of bands as one", merged))
      var refused = 0
      for (forgery, forged) in forgeries {
        if let bands = Self.inflatedBands(png, image.width, forged) {
          XCTAssertEqual(bands, sequential, "\(name): \(forgery)")
        } else {
          refused += 1
        }
        let file = Self.replacingDirectory(of: png, with: forged.chunkData)
        XCTAssertEqual(try PNGDecoder().decode(file), image, "\(name): \(forgery)")
      }
      XCTAssertGreaterThan(refused, forgeries.count / 2, name)
      for garbage in [[UInt8](), [2, 0, 0, 0, 1], [1] + [UInt8](repeating: 0xFF, count: 16)] {
        let file = Self.replacingDirectory(of: png, with: garbage)
        XCTAssertEqual(try PNGDecoder().decode(file), image, "\(name): \(garbage)")
      }
    }
  }

  static func directory(of png: [UInt8]) -> PNGBandDirectory? {
    png.withUnsafeBytes { bytes in
      guard let chunks = PNGChunks(bytes) else { return nil }
      let idat = chunks.chunks.filter { $0.type == PNGChunks.idat }.reduce(0) { $0 + $1.data.count }
      return PNGBandDirectory.read(
        chunks, bytes, height: chunks.size(in: bytes).height, streamLength: idat)
    }
  }

  /// The filtered rows the parallel inflate gives, or nil when it refuses the directory.
  static func inflatedBands(
    _ png: [UInt8], _ width: Int, _ directory: PNGBandDirectory
  ) -> [UInt8]? {
    png.withUnsafeBytes { bytes in
      let chunks = PNGChunks(bytes)!
      let idat = chunks.chunks.first { $0.type == PNGChunks.idat }!
      let height = chunks.size(in: bytes).height
      var filtered = [UInt8](repeating: 0, count: height * (width * 4 + 1))
      let inflated = filtered.withUnsafeMutableBytes { output in
        PNGDecoder.inflateBands(
          UnsafeRawBufferPointer(rebasing: bytes[idat.data]), into: output, width: width,
          directory: directory)
      }
      return inflated ? filtered : nil
    }
  }

  /// The filtered rows zlib's `uncompress` gives for the whole stream.
  static func inflatedBySequentialZlib(_ png: [UInt8]) -> [UInt8]? {
    png.withUnsafeBytes { bytes in
      let chunks = PNGChunks(bytes)!
      let stream = chunks.chunks.filter { $0.type == PNGChunks.idat }.flatMap { bytes[$0.data] }
      let size = chunks.size(in: bytes)
      var length = uLong(size.height * (size.width * 4 + 1))
      var output = [UInt8](repeating: 0, count: Int(length))
      guard uncompress(&output, &length, stream, uLong(stream.count)) == Z_OK else { return nil }
      return output
    }
  }

  static func replacingDirectory(of png: [UInt8], with data: [UInt8]) -> [UInt8] {
    png.withUnsafeBytes { bytes in
      let chunks = PNGChunks(bytes)!
      var file = Array(bytes[0..<8])
      for chunk in chunks.chunks {
        file +=
          chunk.type == PNGBandDirectory.type
          ? PNGChunks.encode(type: PNGBandDirectory.type, data: data) : Array(bytes[chunk.whole])
      }
      return file
    }
  }

  /// libpng's PngSuite (`contrib/pngsuite`, its `interlaced` folder and `contrib/testpngs`,
  /// 164 files) and its crashers, from the Debian source package: `Scripts/pngsuite` fetches
  /// them and runs this test with `PNGSUITE_DIR` set.
  func testDecode_pngSuite_sameAsLibspngAlone() throws {
    guard let folder = ProcessInfo.processInfo.environment["PNGSUITE_DIR"] else {
      throw XCTSkip(
        "PNGSUITE_DIR is not set; Scripts/pngsuite fetches libpng's PngSuite and runs this")
    }
    let root = URL(fileURLWithPath: folder)
    var valid = 0
    var crashers = 0
    for subfolder in ["pngsuite", "pngsuite/interlaced", "testpngs", "testpngs/crashers"] {
      let url = root.appendingPathComponent(subfolder)
      for name in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
      where name.hasSuffix(".png") {
        let bytes = try [UInt8](Data(contentsOf: url.appendingPathComponent(name)))
        try Self.assertSameAsLibspng(bytes, "\(subfolder)/\(name)")
        try Self.assertSameAsLibspng(bytes, "\(subfolder)/\(name), two cores", twoCores: true)
        if subfolder.hasSuffix("crashers") { crashers += 1 } else { valid += 1 }
      }
    }
    XCTAssertEqual(valid, 164)
    XCTAssertEqual(crashers, 23)
  }

  func testDecodeReusing_givesTheSamePixelsAndWritesIntoTheRecycledMemory() throws {
    var generator = SplitMix64(seed: 34)
    let images = [(40, 30), (40, 30), (7, 90), (300, 200), (1, 1)].map { size in
      Self.randomImage(width: size.0, height: size.1, using: &generator)
    }
    var recycled = try RGBAImage(width: 50, height: 50, color: .white)
    for (index, image) in images.enumerated() {
      for channels in [3, 4] {
        let png = Self.png(image, channels: channels, filters: [0, 1, 2, 3, 4], idatSize: 1000)
        let capacity = recycled.pixels.capacity
        let address = recycled.pixels.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        recycled = try PNGDecoder().decode(png, reusing: consume recycled)
        XCTAssertEqual(recycled.pixels, Self.expected(image, channels: channels), "\(index)")
        if recycled.pixels.count + image.height <= capacity {
          XCTAssertEqual(
            recycled.pixels.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }, address,
            "\(index): the memory was not reused")
        }
      }
    }
    // A shared image is never written: its copy keeps its pixels.
    let kept = recycled
    let other = try PNGDecoder().decode(
      Self.png(images[0], channels: 4, filters: [1], idatSize: 100), reusing: recycled)
    XCTAssertEqual(other, images[0])
    XCTAssertEqual(kept.pixels, Self.expected(images[4], channels: 4))
    // Other formats decode through libspng as with decode(_:).
    let palette = try CoreFixtures.bytes("png/palette1_7x5.png")
    XCTAssertEqual(
      try PNGDecoder().decode(palette, reusing: other), try PNGDecoder().decode(palette))
  }

  // MARK: Helpers

  /// The fast path alone, into a fresh buffer.
  static func fastPath(_ bytes: UnsafeRawBufferPointer) -> RGBAImage? {
    var none: [UInt8] = []
    return PNGDecoder().decodeCommonCase(bytes, reusing: &none)
  }

  /// The fast path alone, on two cores or not whatever the image's size.
  static func fastPath(_ png: [UInt8], twoCores: Bool) -> RGBAImage? {
    var none: [UInt8] = []
    return png.withUnsafeBytes {
      PNGDecoder().decodeCommonCase($0, reusing: &none, twoCores: twoCores)
    }
  }

  /// Both paths give the same pixels, or the same error.
  static func assertSameAsLibspng(
    _ bytes: [UInt8], _ name: String, twoCores: Bool? = nil, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    let fast = Result { () throws(PNGError) in
      try PNGDecoder().decode(bytes, commonCase: true, twoCores: twoCores)
    }
    let libspng = Result { () throws(PNGError) in
      try PNGDecoder().decode(bytes, commonCase: false)
    }
    switch (fast, libspng) {
    case (.success(let a), .success(let b)):
      XCTAssertTrue(a == b, "\(name): pixels differ from libspng's", file: file, line: line)
    case (.failure(let a), .failure(let b)):
      XCTAssertEqual(a, b, name, file: file, line: line)
    default:
      XCTFail("\(name): fast path \(fast), libspng \(libspng)", file: file, line: line)
    }
  }

  static func randomImage(
    width: Int, height: Int, using generator: inout SplitMix64
  ) -> RGBAImage {
    var image = try! RGBAImage(width: width, height: height, color: .clear)
    image.withUnsafeMutablePixelBytes { bytes in
      // Few distinct values, so Paeth's ties and Average's carries both occur.
      for index in bytes.indices {
        bytes[index] = [0, 1, 127, 128, 254, 255, UInt8.random(in: 0...255, using: &generator)]
          .randomElement(using: &generator)!
      }
    }
    return image
  }

  /// What the decoder gives for `image` stored with `channels`: RGB drops alpha, read as 255.
  static func expected(_ image: RGBAImage, channels: Int) -> [UInt8] {
    guard channels == 3 else { return image.pixels }
    var pixels = image.pixels
    for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = 255 }
    return pixels
  }

  /// A PNG of `image` whose rows take the filters in turn, its zlib stream split into IDAT
  /// chunks of `idatSize` bytes (after `damage` changed it, CRCs computed afterwards).
  static func png(
    _ image: RGBAImage, channels: Int, filters: [UInt8], idatSize: Int,
    damage: (inout [UInt8]) -> Void = { _ in }
  ) -> [UInt8] {
    let rowBytes = image.width * channels
    var raw: [[UInt8]] = []
    for y in 0..<image.height {
      var row: [UInt8] = []
      for x in 0..<image.width {
        let pixel = image[x, y]
        row += [pixel.red, pixel.green, pixel.blue] + (channels == 4 ? [pixel.alpha] : [])
      }
      raw.append(row)
    }
    var filtered: [UInt8] = []
    for y in 0..<image.height {
      let filter = filters[y % filters.count]
      filtered.append(filter)
      let up = y > 0 ? raw[y - 1] : [UInt8](repeating: 0, count: rowBytes)
      for index in 0..<rowBytes {
        let a = index >= channels ? Int(raw[y][index - channels]) : 0
        let b = Int(up[index])
        let c = index >= channels ? Int(up[index - channels]) : 0
        let predictor: Int
        switch filter {
        case 1: predictor = a
        case 2: predictor = b
        case 3: predictor = (a + b) / 2
        case 4:
          let p = a + b - c
          let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
          predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
        default: predictor = 0
        }
        filtered.append(UInt8(truncatingIfNeeded: Int(raw[y][index]) - predictor))
      }
    }
    var length = compressBound(uLong(filtered.count))
    var stream = [UInt8](repeating: 0, count: Int(length))
    _ = compress2(&stream, &length, filtered, uLong(filtered.count), 6)
    stream.removeLast(stream.count - Int(length))
    damage(&stream)
    var file = CoreFixtures.signature
    let header =
      bigEndian(UInt32(image.width)) + bigEndian(UInt32(image.height))
      + [8, channels == 4 ? 6 : 2, 0, 0, 0]
    file += chunk("IHDR", header)
    for start in stride(from: 0, to: stream.count, by: idatSize) {
      file += chunk("IDAT", Array(stream[start..<min(stream.count, start + idatSize)]))
    }
    file += chunk("IEND", [])
    return file
  }

  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typeAndData = Array(type.utf8) + data
    let crc = UInt32(crc32(0, typeAndData, uInt(typeAndData.count)))
    return bigEndian(UInt32(data.count)) + typeAndData + bigEndian(crc)
  }

  static func bigEndian(_ word: UInt32) -> [UInt8] {
    [UInt8(word >> 24), UInt8((word >> 16) & 0xFF), UInt8((word >> 8) & 0xFF), UInt8(word & 0xFF)]
  }
}
