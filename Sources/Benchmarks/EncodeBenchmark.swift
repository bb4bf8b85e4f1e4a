import Foundation
import ReferenceImageCore

/// PNG encoding alone: ours against the libspng encoding of the same setting on one core (the
/// encoder before `BandedPNGWriter`) and libpng's `png_image`, in the same run, with file sizes.
/// Small enough to profile: `perf record -g Benchmarks --encode-only --setting fast`.
enum EncodeBenchmark {
  /// Measures and prints.
  /// - Parameters:
  ///   - side: The side of the square images.
  ///   - repetitions: Measured repetitions per figure.
  ///   - only: One setting's name; every setting when nil.
  ///   - hardCases: Also noise, a flat image and text, besides the screenshot.
  ///   - files: PNG files whose decoded pixels are encoded too.
  static func run(side: Int, repetitions: Int, only: String?, hardCases: Bool, files: [String]) {
    let screenshot = Screenshot(width: side, height: side, seed: 2026).image
    var images = [("screenshot", screenshot)]
    if hardCases {
      images += [
        ("noise", noise(side: side)),
        (
          "flat",
          try! RGBAImage(
            width: side, height: side, color: RGBAColor(red: 247, green: 247, blue: 248))
        ),
        ("text", text(side: side)),
      ]
    }
    for path in files {
      guard let bytes = FileManager.default.contents(atPath: path),
        let image = try? PNGDecoder().decode([UInt8](bytes))
      else {
        print("error: \(path) is not a PNG file this package decodes")
        exit(1)
      }
      images.append(
        ("\((path as NSString).lastPathComponent), \(image.width)×\(image.height)", image))
    }
    print(
      "PNG encode, \(side)×\(side) images, median of \(repetitions) after 1 warm-up, "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
    for (name, image) in images {
      print("\(name):")
      for setting in PNGEncoder.Setting.allCases where only.map({ $0 == setting.rawValue }) ?? true
      {
        print("  " + row(setting, image: image, repetitions: repetitions))
      }
      if only == nil { print("  " + libpngRow(image, repetitions: repetitions)) }
    }
    if let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
      print("load average \(text.split(separator: " ").prefix(3).joined(separator: " "))")
    }
  }

  /// Writes each file's pixels encoded with `setting` into `folder`, under the file's name.
  static func write(_ files: [String], setting name: String, to folder: String) {
    guard let setting = PNGEncoder.Setting(rawValue: name) else {
      print("error: no setting \(name)")
      exit(64)
    }
    try! FileManager.default.createDirectory(
      atPath: folder, withIntermediateDirectories: true)
    for path in files {
      let bytes = try! [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      let png = try! PNGEncoder(setting: setting).encode(try! PNGDecoder().decode(bytes))
      let target = URL(fileURLWithPath: folder).appendingPathComponent(
        URL(fileURLWithPath: path).lastPathComponent)
      try! Data(png).write(to: target)
    }
  }

  /// One setting: its time and size and, for the banded settings, the libspng encoding's.
  private static func row(_ setting: PNGEncoder.Setting, image: RGBAImage, repetitions: Int)
    -> String
  {
    var png: [UInt8] = []
    let timing = Timing.measure(repetitions: repetitions) {
      png = try! PNGEncoder(setting: setting).encode(image)
    }
    let roundTrip = (try? PNGDecoder().decode(png)) == image ? "" : "  FAILED: round trip"
    var line =
      ".\(setting.rawValue): \(Format.milliseconds(timing.median)), "
      + "\(Format.bytes(png.count))\(roundTrip)"
    guard setting == .fast || setting == .fastest else { return line }
    var before = PNGEncoder(setting: setting)
    before.usesLibspngOnly = true
    var old: [UInt8] = []
    let oldTiming = Timing.measure(repetitions: repetitions) { old = try! before.encode(image) }
    line +=
      "; libspng on one core (before) \(Format.milliseconds(oldTiming.median)), "
      + "\(Format.bytes(old.count)): \(Format.ratio(oldTiming.median / timing.median)) faster, "
      + "size \(Format.percent(Double(png.count) / Double(old.count) - 1))"
    return line
  }

  private static func libpngRow(_ image: RGBAImage, repetitions: Int) -> String {
    var png: [UInt8] = []
    let timing = Timing.measure(repetitions: repetitions) {
      png = try! LibPNG.encode(image.pixels, width: image.width, height: image.height)
    }
    return "libpng png_image: \(Format.milliseconds(timing.median)), \(Format.bytes(png.count))"
  }

  /// Random bytes: nothing to compress, the worst case for time per byte.
  private static func noise(side: Int) -> RGBAImage {
    var random = SplitMix64(seed: 11)
    var pixels = [UInt8](repeating: 0, count: side * side * 4)
    for index in stride(from: 0, to: pixels.count, by: 8) {
      withUnsafeBytes(of: random.next()) { word in
        for offset in 0..<min(8, pixels.count - index) { pixels[index + offset] = word[offset] }
      }
    }
    return try! RGBAImage(width: side, height: side, pixels: pixels)
  }

  /// Lines of small anti-aliased glyph-like marks on white, as in a document or a table: many
  /// short runs and edges, few flat rows.
  private static func text(side: Int) -> RGBAImage {
    var random = SplitMix64(seed: 12)
    var image = try! RGBAImage(width: side, height: side, color: .white)
    for baseline in stride(from: 12, to: side - 12, by: 14) {
      var x = 8
      while x < side - 16 {
        let width = 3 + Int(random.next() % 6)
        let height = 5 + Int(random.next() % 5)
        for dy in 0..<height {
          for dx in 0..<width {
            let edge = dx == 0 || dx == width - 1 || dy == 0
            let ink = edge ? UInt8(90 + random.next() % 120) : 30
            image[x + dx, baseline - dy] = RGBAColor(red: ink, green: ink, blue: ink)
          }
        }
        x += width + 1 + (random.next() % 5 == 0 ? 5 : 0)
      }
    }
    return image
  }
}
