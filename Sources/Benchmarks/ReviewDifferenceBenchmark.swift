import Foundation
import ReferenceImageCore
import ReferenceReview

/// The review report's cost per changed image against decoding its two PNGs, both in CPU time
/// of this process (the decoder inflates the package's own files on several threads, whose
/// time counts too), so other work on a shared machine does not move the figures: the report decodes both and then makes the difference (compare, draw,
/// find regions, encode), and the issue's target is that the second step costs at most 1.5×
/// the first.
enum ReviewDifferenceBenchmark {
  static func run(repetitions: Int) {
    let before = Screenshot(width: 800, height: 600, seed: 2026).image
    let cases = [
      ("1% of pixels drifted", RenderDrift.apply(to: before, fraction: 0.01, seed: 7)),
      ("text moved by a pixel", Screenshot(width: 800, height: 600, seed: 2026, shift: 1).image),
    ]
    let beforePNG = try! PNGEncoder(setting: .fast).encode(before)
    print("review difference images, 800×600, process CPU time, median of \(repetitions)")
    for (label, after) in cases {
      let afterPNG = try! PNGEncoder(setting: .fast).encode(after)
      let decode = median(repetitions) {
        blackHole(try! PNGDecoder().decode(beforePNG))
        blackHole(try! PNGDecoder().decode(afterPNG))
      }
      var made: ReviewDifference?
      let difference = median(repetitions) {
        made = try! ReviewDifference.make(after, before, bands: 1)
      }
      let ratio = difference / decode
      print(
        "  \(label): decode both \(milliseconds(decode)), difference \(milliseconds(difference)) "
          + "(\(made?.png.count ?? 0) bytes, \(made?.regions.count ?? 0) regions): "
          + String(format: "%.2f", ratio) + "× (target ≤ 1.5×: \(ratio <= 1.5 ? "met" : "MISSED"))")
    }
  }

  private static func milliseconds(_ seconds: Double) -> String {
    String(format: "%.1f ms", seconds * 1000)
  }

  /// The median CPU time of this process over `repetitions` runs, after one warm-up.
  private static func median(_ repetitions: Int, _ body: () -> Void) -> Double {
    body()
    var samples: [Double] = []
    for _ in 0..<repetitions {
      let start = processCPU()
      body()
      samples.append(processCPU() - start)
    }
    return samples.sorted()[samples.count / 2]
  }

  private static func processCPU() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
