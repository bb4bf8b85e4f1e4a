import Foundation
import ReferenceImageCore

/// PNG encoding alone, on the screenshot: every setting of ours and libpng's `png_image`, with
/// file sizes. Small enough to profile: `perf record -g Benchmarks --encode-only`.
enum EncodeBenchmark {
  static func run(side: Int, repetitions: Int, only: String?) {
    let image = Screenshot(width: side, height: side, seed: 2026).image
    print("PNG encode, \(side)×\(side) screenshot, median of \(repetitions) after 1 warm-up")
    for setting in PNGEncoder.Setting.allCases where only == nil || only == setting.rawValue {
      var png: [UInt8] = []
      let timing = Timing.measure(repetitions: repetitions) {
        png = try! PNGEncoder(setting: setting).encode(image)
      }
      let roundTrip = (try? PNGDecoder().decode(png)) == image ? "" : "  FAILED: round trip"
      var line =
        "  .\(setting.rawValue): \(Format.milliseconds(timing.median)), "
        + "\(Format.bytes(png.count))\(roundTrip)"
      if setting != .small {
        // The same setting as before the banded writer (libspng, one core), in the same run.
        var before = PNGEncoder(setting: setting)
        before.usesLibspngOnly = true
        var old: [UInt8] = []
        let oldTiming = Timing.measure(repetitions: repetitions) { old = try! before.encode(image) }
        line +=
          "; libspng on one core (before) \(Format.milliseconds(oldTiming.median)), "
          + "\(Format.bytes(old.count)): \(Format.ratio(oldTiming.median / timing.median)) faster, "
          + "size \(Format.percent(Double(png.count) / Double(old.count) - 1))"
      }
      print(line)
    }
    guard only == nil else { return }
    var libpng: [UInt8] = []
    let timing = Timing.measure(repetitions: repetitions) {
      libpng = try! LibPNG.encode(image.pixels, width: side, height: side)
    }
    print(
      "  libpng png_image: \(Format.milliseconds(timing.median)), \(Format.bytes(libpng.count))")
    if let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
      print("  load average \(text.split(separator: " ").prefix(3).joined(separator: " "))")
    }
  }
}
