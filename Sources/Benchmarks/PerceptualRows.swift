import Foundation
import ReferenceImageCore

/// Our perceptual count and count + difference image on one pair, each beside pixelmatch's
/// JavaScript on the same raw files (count only, and with a diff output), added to main.swift's
/// table and checks against its reference screenshot.
@MainActor func perceptualRows(_ label: String, _ actual: RGBAImage, _ actualRaw: String) {
  let count = Timing.measure(repetitions: repetitions) {
    blackHole(perceptual.compare(actual, to: reference))
  }
  let singleBand = Timing.measure(repetitions: repetitions) {
    blackHole(
      perceptual.compare(actual, to: reference, bound: .none, bands: 1))
  }
  let withImage = Timing.measure(repetitions: repetitions) {
    blackHole(perceptual.compareWithDifferenceImage(actual, to: reference))
  }
  let ours = perceptual.compare(actual, to: reference).differences?.differingPixelCount ?? 0
  func differing(_ comparison: ImageComparison) -> Int {
    comparison.compare(actual, to: reference).differences?.differingPixelCount ?? 0
  }
  let changed = differing(.exact)
  let overThreshold = differing(.perceptual(threshold: 0.1, includeAntiAliasing: true))
  checks.append(
    "\(label): \(changed) pixels changed (\(Format.share(changed, of: pixelCount)) of the image), "
      + "\(overThreshold) of them over the threshold (\(Format.share(overThreshold, of: changed))), "
      + "\(ours) counted (not anti-aliasing)")
  var js: PixelmatchJS.Figures?
  if case .success(let runner) = pixelmatch {
    do {
      js = try runner.measure(
        actual: actualRaw, reference: files.referenceRaw, width: side, height: side,
        runs: repetitions)
    } catch {
      table.note("pixelmatch on \(label) failed: \(error)")
    }
  }
  if let js {
    let agree = js.count == ours && js.diffCount == ours
    checks.append(
      "\(label): pixelmatch JS counts \(js.count) (\(js.diffCount) with diff output), ours "
        + "\(ours)" + (agree ? " (agree)" : " — DISAGREE"))
    let countSpeedup = js.countTiming.median / count.median
    table.add(
      "perceptual 0.1 count, \(label)", ours: Format.milliseconds(count.median),
      baseline: "pixelmatch JS " + Format.milliseconds(js.countTiming.median),
      ratio: Format.ratio(count.median / js.countTiming.median), throughput: throughput(count),
      target: "≥ 7× faster: \(Format.fixed(countSpeedup, 1))× \(Format.verdict(countSpeedup >= 7))")
    table.add(
      "  same, one band (one core)", ours: Format.milliseconds(singleBand.median),
      baseline: "pixelmatch JS " + Format.milliseconds(js.countTiming.median),
      ratio: Format.ratio(singleBand.median / js.countTiming.median),
      throughput: throughput(singleBand))
    let imageSpeedup = js.diffTiming.median / withImage.median
    table.add(
      "perceptual count + difference image, \(label)",
      ours: Format.milliseconds(withImage.median),
      baseline: "pixelmatch JS with diff " + Format.milliseconds(js.diffTiming.median),
      ratio: Format.ratio(withImage.median / js.diffTiming.median),
      throughput: throughput(withImage),
      target: "≥ 5× faster: \(Format.fixed(imageSpeedup, 1))× \(Format.verdict(imageSpeedup >= 5))")
  } else {
    table.add(
      "perceptual 0.1 count, \(label)", ours: Format.milliseconds(count.median),
      baseline: "pixelmatch JS not run", throughput: throughput(count))
    table.add(
      "  same, one band (one core)", ours: Format.milliseconds(singleBand.median),
      throughput: throughput(singleBand))
    table.add(
      "perceptual count + difference image, \(label)",
      ours: Format.milliseconds(withImage.median), baseline: "pixelmatch JS not run",
      throughput: throughput(withImage))
  }
}
