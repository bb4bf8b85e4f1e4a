import Foundation
import ProcessSupport
import ReferenceImageCore

/// PNG decoding beside the peers a user could pick, measured in the same run: the decoder now
/// and as it was (libspng alone), pyspng, Pillow and fpng on files written by this package,
/// Pillow, fpng and ImageMagick; and reading two PNGs, decoding and counting beside blazediff
/// (its own PNG codec) and pixelhog. The peers run in `Scripts/benchmark_decode_peers.py`,
/// under a Python with them installed (`Scripts/benchmark-decode` makes that environment).
enum DecodeBenchmark {
  /// Runs the whole comparison and prints its tables.
  static func run(
    side: Int, repetitions: Int, python: String, photo: String?, script: String, keep: String?
  ) {
    let folder =
      keep.map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? FileManager.default.temporaryDirectory
      .appendingPathComponent("reference-images-decode-\(getpid())", isDirectory: true)
    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { if keep == nil { try? FileManager.default.removeItem(at: folder) } }
    let cores = allowedCores()
    print(
      "PNG decode beside the peers: \(side)×\(side) images, median of \(repetitions) after 1 "
        + "warm-up, \(cores) core\(cores == 1 ? "" : "s") (each side's own threads), load "
        + "average \(loadAverageText())")

    let pairSide = (800, 600)
    var images: [String: RGBAImage] = [
      "screenshot": Screenshot(width: side, height: side, seed: 2026).image,
      "screenshot-moved": Screenshot(width: side, height: side, seed: 2026, shift: 1).image,
      "chart": Screenshot(width: pairSide.0, height: pairSide.1, seed: 99).image,
      "chart-moved": Screenshot(width: pairSide.0, height: pairSide.1, seed: 99, shift: 1).image,
      "noise": noise(side: side),
      "flat": try! RGBAImage(
        width: side, height: side, color: RGBAColor(red: 240, green: 242, blue: 245)),
    ]
    for (name, image) in images { writeRaw(image, name, to: folder) }
    var arguments = [script, "prepare", folder.path]
    if let photo { arguments += ["--photo", photo] }
    guard let prepared = runPython(python, arguments) else { return }
    if prepared.contains("\"photo\": true") {
      let raw = try! [UInt8](Data(contentsOf: folder.appendingPathComponent("photo.rgba")))
      images["photo"] = try! RGBAImage(width: side, height: side, pixels: raw)
    }
    let encoders =
      ["ours", "pillow", "fpng"] + (prepared.contains("\"imagemagick\": true") ? ["magick"] : [])
    for (name, image) in images {
      let png = try! PNGEncoder().encode(image)
      try! Data(png).write(to: folder.appendingPathComponent("\(name).ours.png"))
    }
    let decodeNames = ["screenshot", "photo", "noise", "flat", "chart"].filter { images[$0] != nil }
    let decodeFiles = decodeNames.flatMap { name in encoders.map { "\(name).\($0).png" } }
    let pairs = ["screenshot", "chart"].flatMap { name in
      encoders.map { ("\(name).\($0).png", "\(name)-moved.\($0).png") }
    }
    let cases: [String: Any] = [
      "decode": decodeFiles, "pairs": pairs.map { [$0.0, $0.1] },
    ]
    try! JSONSerialization.data(withJSONObject: cases).write(
      to: folder.appendingPathComponent("cases.json"))
    guard
      let timed = runPython(
        python, [script, "time", folder.path, "--repetitions", String(repetitions)]),
      let peers = try? JSONSerialization.jsonObject(with: Data(timed.utf8)) as? [String: Any],
      let peerDecode = peers["decode"] as? [String: [String: Double]],
      let peerPairs = peers["pairs"] as? [String: [String: Double]]
    else { return }

    print("\ndecode alone (bytes in memory → RGBA8); ratio = ours ÷ theirs, below 1 is faster")
    print(
      pad("file", 24) + pad("bytes", 10) + pad("ours", 10) + pad("libspng (before)", 18)
        + pad("pyspng", 17) + pad("Pillow", 17) + "fpng")
    for file in decodeFiles {
      let bytes = try! [UInt8](Data(contentsOf: folder.appendingPathComponent(file)))
      let expected = images[String(file.prefix { $0 != "." })]!
      let now = try! PNGDecoder().decode(bytes)
      let before = try! PNGDecoder().decode(bytes, commonCase: false)
      if now != before || (now.pixels != expected.pixels && !file.hasPrefix("photo")) {
        print("  FAILED: \(file) does not decode to the pixels libspng gives")
      }
      let ours = Timing.measure(repetitions: repetitions) {
        blackHole(try! PNGDecoder().decode(bytes))
      }
      let old = Timing.measure(repetitions: repetitions) {
        blackHole(try! PNGDecoder().decode(bytes, commonCase: false))
      }
      let theirs = peerDecode[file] ?? [:]
      func cell(_ seconds: Double?) -> String {
        guard let seconds else { return "—" }
        return Format.milliseconds(seconds) + " (" + Format.ratio(ours.median / seconds) + ")"
      }
      print(
        pad(file, 24) + pad(Format.bytes(bytes.count), 10)
          + pad(Format.milliseconds(ours.median), 10)
          + pad(cell(old.median), 18) + pad(cell(theirs["pyspng"]), 17)
          + pad(cell(theirs["pillow"]), 17) + cell(theirs["fpng"]))
    }

    print(
      "\nread two PNG files, decode, perceptual count (threshold 0.1, anti-aliasing excluded); "
        + "faults: minor page faults per round")
    print(
      pad("pair", 24) + pad("ours (faults)", 18) + pad("reusing (faults) ÷ blazediff", 26)
        + pad("ours before", 17) + pad("blazediff", 17)
        + pad("pixelhog", 17) + "counts (ours / blazediff / pixelhog)")
    let comparison = ImageComparison.perceptual(threshold: 0.1)
    for (a, b) in pairs {
      let pathA = folder.appendingPathComponent(a)
      let pathB = folder.appendingPathComponent(b)
      func count(commonCase: Bool) -> Int {
        let first = try! PNGDecoder().decode(
          [UInt8](Data(contentsOf: pathA)), commonCase: commonCase)
        let second = try! PNGDecoder().decode(
          [UInt8](Data(contentsOf: pathB)), commonCase: commonCase)
        return comparison.compare(second, to: first).differences?.differingPixelCount ?? 0
      }
      var faults = minorFaults()
      let ours = Timing.measure(repetitions: repetitions) { blackHole(count(commonCase: true)) }
      let oursFaults = (minorFaults() - faults) / (repetitions + 1)
      // The same work decoding into the two images of the round before, as a loop over many
      // pairs can (`PNGDecoder.decode(_:reusing:)`).
      let recycler = Recycler()
      faults = minorFaults()
      let reusing = Timing.measure(repetitions: repetitions) {
        recycler.first = try! PNGDecoder().decode(
          [UInt8](Data(contentsOf: pathA)), reusing: recycler.take(\.first))
        recycler.second = try! PNGDecoder().decode(
          [UInt8](Data(contentsOf: pathB)), reusing: recycler.take(\.second))
        blackHole(
          comparison.compare(recycler.second, to: recycler.first).differences?
            .differingPixelCount)
      }
      let reusingFaults = (minorFaults() - faults) / (repetitions + 1)
      let old = Timing.measure(repetitions: repetitions) { blackHole(count(commonCase: false)) }
      let theirs = peerPairs["\(a) \(b)"] ?? [:]
      func cell(_ seconds: Double?) -> String {
        guard let seconds else { return "—" }
        return Format.milliseconds(seconds) + " (" + Format.ratio(ours.median / seconds) + ")"
      }
      let counts =
        [count(commonCase: true)].map(String.init)
        + [theirs["blazediff_count"], theirs["pixelhog_count"]].map {
          $0.map { String(Int($0)) } ?? "—"
        }
      print(
        pad(a.replacingOccurrences(of: ".png", with: "") + " pair", 24)
          + pad(Format.milliseconds(ours.median) + " (\(oursFaults))", 18)
          + pad(
            Format.milliseconds(reusing.median) + " (\(reusingFaults)) "
              + (theirs["blazediff"].map { Format.ratio(reusing.median / $0) } ?? ""), 26)
          + pad(cell(old.median), 17)
          + pad(cell(theirs["blazediff"]), 17) + pad(cell(theirs["pixelhog"]), 17)
          + counts.joined(separator: " / "))
    }
    print("\nload average at the end \(loadAverageText())")
  }

  /// Decodes one file again and again, now and as before, with the time and the minor page
  /// faults (`getrusage`) each decode costs: what a verify or merge pays per reference.
  static func runFile(_ path: String, repetitions: Int) {
    let bytes = try! [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    for (label, commonCase) in [("now", true), ("libspng alone (before)", false)] {
      let faultsBefore = minorFaults()
      let timing = Timing.measure(repetitions: repetitions, warmUps: 0) {
        blackHole(try! PNGDecoder().decode(bytes, commonCase: commonCase))
      }
      let faults = Double(minorFaults() - faultsBefore) / Double(repetitions)
      print(
        "\(path) \(label): \(Format.fixed(timing.median * 1000, 3)) ms median of \(repetitions), "
          + "\(Format.fixed(faults, 0)) minor page faults per decode")
    }
  }

  /// Holds the images of the last round, handing each out with no other reference to it.
  private final class Recycler {
    var first = try! RGBAImage(width: 1, height: 1, color: .clear)
    var second = try! RGBAImage(width: 1, height: 1, color: .clear)

    func take(_ slot: ReferenceWritableKeyPath<Recycler, RGBAImage>) -> RGBAImage {
      var taken = try! RGBAImage(width: 1, height: 1, color: .clear)
      swap(&taken, &self[keyPath: slot])
      return taken
    }
  }

  private static func minorFaults() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_minflt
  }

  private static func noise(side: Int) -> RGBAImage {
    var generator = SplitMix64(seed: 5)
    var image = try! RGBAImage(width: side, height: side, color: .clear)
    image.withUnsafeMutablePixelBytes { bytes in
      let words = bytes.bindMemory(to: UInt64.self)
      for index in words.indices { words[index] = generator.next() }
    }
    return image
  }

  private static func writeRaw(_ image: RGBAImage, _ name: String, to folder: URL) {
    try! Data(image.pixels).write(to: folder.appendingPathComponent("\(name).rgba"))
    try! Data("{\"width\": \(image.width), \"height\": \(image.height)}".utf8).write(
      to: folder.appendingPathComponent("\(name).json"))
  }

  private static func runPython(_ python: String, _ arguments: [String]) -> String? {
    do {
      let run = try ChildProcess.capture(URL(fileURLWithPath: python), arguments)
      guard run.status == 0 else {
        print("peers failed (\(python) \(arguments.joined(separator: " "))):\n\(run.error)")
        return nil
      }
      return run.output
    } catch {
      print("peers could not run: \(error)")
      return nil
    }
  }

  /// The cores this process may run on (`taskset` narrows them), from /proc/self/status:
  /// `activeProcessorCount` counts every online core.
  private static func allowedCores() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
    else { return ProcessInfo.processInfo.activeProcessorCount }
    let list = line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
    return list.split(separator: ",").reduce(0) { total, part in
      let bounds = part.split(separator: "-").compactMap { Int($0) }
      return total + (bounds.count == 2 ? bounds[1] - bounds[0] + 1 : 1)
    }
  }

  private static func loadAverageText() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
    return text.split(separator: " ").prefix(3).joined(separator: " ")
  }

  private static func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
  }
}
