import Foundation
import ReferenceImageCore

/// What classifying a failing pair's changes (`ChangeClassifier`) costs against what the
/// failure already pays for its difference image, measured in the same run on the same pairs:
/// one 2000×2000 pair of each kind of change, and 1,000 failing 800×600 pairs. The issue's
/// target is that classifying costs at most 2× the difference image. Both in CPU time of this
/// process (the difference image uses every core, the classifier one), with wall time beside.
enum ChangeKindsBenchmark {
  static func run(repetitions: Int, side: Int) {
    print("change kinds: classifying against the difference image, median of \(repetitions)")
    let reference = Screenshot(width: side, height: side, seed: 2026).image
    for (label, image) in cases(reference, side: side) {
      var regions: [ChangedRegion] = []
      let difference = measure(repetitions) {
        blackHole(ImageComparison.exact.differenceImage(image, reference))
      }
      let drawn = ImageComparison.exact.differenceImage(image, reference)
      let classify = measure(repetitions) {
        regions =
          ChangeClassifier.classify(image, reference: reference, differenceImage: drawn)
          .regions
      }
      report("\(side)×\(side), \(label) (\(tally(regions)))", difference, classify)
    }
    manyPairs(count: 1000)
  }

  /// The 2000×2000 failing pairs: text moved by a pixel, 1% of pixels drifted, a chart's
  /// colours changed.
  private static func cases(_ reference: RGBAImage, side: Int) -> [(String, RGBAImage)] {
    [
      (
        "text and lines moved by a pixel",
        Screenshot(width: side, height: side, seed: 2026, shift: 1).image
      ),
      ("1% of pixels drifted", RenderDrift.apply(to: reference, fraction: 0.01, seed: 7)),
      ("one colour replaced", recoloured(reference)),
    ]
  }

  /// 1,000 failing 800×600 pairs (ten screenshots, each moved, drifted and recoloured, cycled),
  /// every one drawn and classified once per measurement.
  private static func manyPairs(count: Int) {
    var pairs: [(RGBAImage, RGBAImage)] = []
    for seed in 0..<10 {
      let reference = Screenshot(width: 800, height: 600, seed: UInt64(seed)).image
      pairs.append(
        (Screenshot(width: 800, height: 600, seed: UInt64(seed), shift: 1).image, reference))
      pairs.append(
        (RenderDrift.apply(to: reference, fraction: 0.01, seed: UInt64(seed)), reference))
      pairs.append((recoloured(reference), reference))
    }
    let drawn = pairs.map { ImageComparison.exact.differenceImage($0.0, $0.1) }
    let difference = measure(1) {
      for index in 0..<count {
        let (image, reference) = pairs[index % pairs.count]
        blackHole(ImageComparison.exact.differenceImage(image, reference))
      }
    }
    let classify = measure(1) {
      for index in 0..<count {
        let (image, reference) = pairs[index % pairs.count]
        blackHole(
          ChangeClassifier.classify(
            image, reference: reference, differenceImage: drawn[index % pairs.count]))
      }
    }
    report("\(count) failing 800×600 pairs", difference, classify)
  }

  /// "59 regions: 52 moved, 7 changed": what the classifier said, to see that it says something.
  private static func tally(_ regions: [ChangedRegion]) -> String {
    var counts: [String: Int] = [:]
    for region in regions { counts[region.kind.name, default: 0] += 1 }
    let parts = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
      .map { "\($0.value) \($0.key)" }
    return "\(regions.count) regions: " + parts.joined(separator: ", ")
  }

  /// The image with its most common non-background colour replaced by another.
  private static func recoloured(_ image: RGBAImage) -> RGBAImage {
    var counts: [UInt32: Int] = [:]
    image.pixels.withUnsafeBytes { bytes in
      for word in bytes.bindMemory(to: UInt32.self).prefix(200_000) {
        counts[word, default: 0] += 1
      }
    }
    let ranked = counts.sorted { $0.value > $1.value }.map(\.key)
    let target = ranked.count > 1 ? ranked[1] : ranked[0]
    var copy = image
    copy.withUnsafeMutablePixelBytes { bytes in
      let words = bytes.bindMemory(to: UInt32.self)
      for index in words.indices where words[index] == target {
        words[index] = 0xFF_EA_33_93  // #9333EA, little-endian RGBA
      }
    }
    return copy
  }

  private static func report(_ label: String, _ difference: Sample, _ classify: Sample) {
    let ratio = classify.cpu / difference.cpu
    print(
      "  \(label): difference image \(milliseconds(difference.cpu)) CPU "
        + "(\(milliseconds(difference.wall)) wall), classifying \(milliseconds(classify.cpu)) CPU "
        + "(\(milliseconds(classify.wall)) wall): " + String(format: "%.2f", ratio)
        + "× in CPU time, " + String(format: "%.2f", classify.wall / difference.wall)
        + "× in wall time (target ≤ 2× CPU: \(ratio <= 2 ? "met" : "MISSED"))")
  }

  private static func milliseconds(_ seconds: Double) -> String {
    String(format: "%.1f ms", seconds * 1000)
  }

  struct Sample {
    var cpu: Double
    var wall: Double
  }

  /// The median CPU and wall time over `repetitions` runs, after one warm-up.
  private static func measure(_ repetitions: Int, _ body: () -> Void) -> Sample {
    body()
    var cpu: [Double] = []
    var wall: [Double] = []
    for _ in 0..<repetitions {
      let start = (processCPU(), Date())
      body()
      cpu.append(processCPU() - start.0)
      wall.append(Date().timeIntervalSince(start.1))
    }
    return Sample(cpu: cpu.sorted()[cpu.count / 2], wall: wall.sorted()[wall.count / 2])
  }

  private static func processCPU() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
