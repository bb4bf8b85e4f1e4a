import Foundation
import ReferenceImageCore

// Measures the core on screenshot-like images and prints each figure beside what a user would
// otherwise run, measured in the same run on the same machine. Targets are goals from the
// issue, reported as PASS or MISS; they are not assertions, so the exit status is 0 either way.

let options: BenchmarkOptions
do {
  options = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  if let message = error.message {
    FileHandle.standardError.write(Data("error: \(message)\n\n\(BenchmarkOptions.usage)\n".utf8))
    exit(64)
  }
  print(BenchmarkOptions.usage)
  exit(0)
}

#if DEBUG
  print("warning: this is a debug build; figures are meaningless. Build with -c release.\n")
#endif

if options.comparisonOptionsOnly {
  ComparisonOptionsBenchmark.run(side: options.side, repetitions: options.repetitions)
  exit(0)
}

if options.reviewDifferenceOnly {
  ReviewDifferenceBenchmark.run(repetitions: options.repetitions)
  exit(0)
}

if options.changeKindsOnly {
  ChangeKindsBenchmark.run(
    repetitions: options.repetitions, side: options.side, only: options.changeKindsPairs,
    regionsFile: options.changeKindsRegions)
  exit(0)
}

if options.encodeOnly, let folder = options.writeFolder {
  EncodeBenchmark.write(
    options.encodeFiles, setting: options.encodeSetting ?? "fast", to: folder)
  exit(0)
}

if !options.compactCostFiles.isEmpty {
  CompactCostBenchmark.run(files: options.compactCostFiles, repetitions: options.repetitions)
  exit(0)
}

if !options.decodeFiles.isEmpty {
  for file in options.decodeFiles {
    DecodeBenchmark.runFile(file, repetitions: options.repetitions)
  }
  exit(0)
}

if options.decodePeers {
  DecodeBenchmark.run(
    side: options.side, repetitions: options.repetitions, python: options.python,
    photo: options.photo, script: options.peersScript, keep: options.keepImages)
  exit(0)
}

let side = options.side
let pixelCount = side * side
let repetitions = options.repetitions
let runStart = ContinuousClock().now
func elapsed() -> String {
  Format.fixed(Timing.seconds(ContinuousClock().now - runStart), 1) + " s"
}

print(
  "ReferenceImages benchmarks: \(side)×\(side) screenshot-like images "
    + "(\(Format.fixed(Double(pixelCount) / 1e6, 1)) Mpx), median of \(repetitions) "
    + "after 1 warm-up, \(ProcessInfo.processInfo.activeProcessorCount) cores")

/// The one-minute load average, for telling a contended run from a slow library: on a shared
/// machine another build halves every figure.
func loadAverage() -> Double? {
  guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
    let first = text.split(separator: " ").first
  else { return nil }
  return Double(first)
}
let loadAtStart = loadAverage()

if options.encodeOnly {
  EncodeBenchmark.run(
    side: options.side, repetitions: options.repetitions, only: options.encodeSetting,
    hardCases: options.hardCases, files: options.encodeFiles)
  exit(0)
}

// MARK: Fixtures

let reference = Screenshot(width: side, height: side, seed: 2026).image
// A copy with its own storage: `hasSamePixels` skips the memcmp for shared buffers, which would
// make the identical case look free.
let referenceCopy = try! RGBAImage(
  width: side, height: side, pixels: reference.pixels.withUnsafeBufferPointer { Array($0) })
let drifted = RenderDrift.apply(to: reference, fraction: 0.01, seed: 7)
// The same screenshot with every text line moved right and every chart line down by one pixel:
// what a changed font metric does. Most changed pixels are glyph edges far above the threshold.
let textMoved = Screenshot(width: side, height: side, seed: 2026, shift: 1).image
let referencePNG = try! PNGEncoder(setting: .fast).encode(reference)
let driftedPNG = try! PNGEncoder(setting: .fast).encode(drifted)
let referenceSmallPNG = try! PNGEncoder(setting: .small).encode(reference)
print("fixtures ready (\(elapsed()))")

let folder: URL
if let keep = options.keepImages {
  folder = URL(fileURLWithPath: keep, isDirectory: true)
} else {
  folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("reference-images-benchmark-\(getpid())", isDirectory: true)
}
try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let files = (
  referencePNG: folder.appendingPathComponent("reference.png").path,
  actualPNG: folder.appendingPathComponent("actual.png").path,
  referenceRaw: folder.appendingPathComponent("reference.rgba").path,
  actualRaw: folder.appendingPathComponent("actual.rgba").path,
  textMovedRaw: folder.appendingPathComponent("text-moved.rgba").path
)
try! Data(referencePNG).write(to: URL(fileURLWithPath: files.referencePNG))
try! Data(driftedPNG).write(to: URL(fileURLWithPath: files.actualPNG))
try! Data(reference.pixels).write(to: URL(fileURLWithPath: files.referenceRaw))
try! Data(drifted.pixels).write(to: URL(fileURLWithPath: files.actualRaw))
try! Data(textMoved.pixels).write(to: URL(fileURLWithPath: files.textMovedRaw))

var table = ReportTable()
var checks: [String] = []

func throughput(_ timing: Timing) -> String { Format.pixelsPerSecond(pixelCount, timing.median) }

// MARK: Identical compare vs memcmp

let identical = Timing.measure(repetitions: repetitions) {
  blackHole(ImageComparison.exact.compare(reference, to: referenceCopy))
}
let memcmpTiming = Timing.measure(repetitions: repetitions) {
  let equal = reference.pixels.withUnsafeBytes { a in
    referenceCopy.pixels.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) }
  }
  blackHole(equal)
}
let identicalRatio = identical.median / memcmpTiming.median
table.add(
  "compare, identical (any strategy)", ours: Format.milliseconds(identical.median),
  baseline: "memcmp " + Format.milliseconds(memcmpTiming.median),
  ratio: Format.ratio(identicalRatio), throughput: throughput(identical),
  target: "≤ 1.2× memcmp: \(Format.verdict(identicalRatio <= 1.2))")
if ImageComparison.exact.compare(reference, to: referenceCopy).outcome != .identical {
  checks.append("FAILED: identical images did not compare as identical")
}

// MARK: Comparisons on the 1%-changed pair

let imageMagick = ImageMagick.locate()
var imageMagickRaw: Timing?
var imageMagickPNG: Timing?
switch imageMagick {
case .success(let magick):
  do {
    let rawInputs = [
      "-size", "\(side)x\(side)", "-depth", "8", "rgba:" + files.referenceRaw,
      "-size", "\(side)x\(side)", "-depth", "8", "rgba:" + files.actualRaw,
    ]
    var count = 0
    imageMagickRaw = try Timing.measure(repetitions: repetitions) {
      count = try magick.absoluteErrorCount(rawInputs)
    }
    var pngCount = 0
    imageMagickPNG = try Timing.measure(repetitions: repetitions) {
      pngCount = try magick.absoluteErrorCount([files.referencePNG, files.actualPNG])
    }
    let ours =
      ImageComparison.exact.compare(drifted, to: reference).differences?
      .differingPixelCount ?? 0
    checks.append(
      "differing pixels: ours (exact) \(ours), ImageMagick AE raw \(count), PNG \(pngCount)"
        + (ours == count && ours == pngCount ? " (agree)" : " — DISAGREE"))
    table.note("ImageMagick: \(magick.version); its own thread count (OpenMP) left at default")
  } catch {
    table.note("ImageMagick baseline failed: \(error)")
  }
case .failure(let failure):
  table.note(
    "ImageMagick baseline skipped: \(failure). Install it with `apt-get install imagemagick` "
      + "(Scripts/benchmark does this).")
}

let exactTiming = Timing.measure(repetitions: repetitions) {
  blackHole(ImageComparison.exact.compare(drifted, to: reference))
}
if let raw = imageMagickRaw {
  table.add(
    "compare exact, 1% changed", ours: Format.milliseconds(exactTiming.median),
    baseline: "IM compare AE, raw RGBA files " + Format.milliseconds(raw.median),
    ratio: Format.ratio(exactTiming.median / raw.median), throughput: throughput(exactTiming))
} else {
  table.add(
    "compare exact, 1% changed", ours: Format.milliseconds(exactTiming.median),
    throughput: throughput(exactTiming))
}

let decodeBothAndCompare = Timing.measure(repetitions: repetitions) {
  let actual = try! PNGDecoder().decode(driftedPNG)
  let expected = try! PNGDecoder().decode(referencePNG)
  blackHole(ImageComparison.exact.compare(actual, to: expected))
}
if let png = imageMagickPNG {
  table.add(
    "decode 2 PNGs + compare exact", ours: Format.milliseconds(decodeBothAndCompare.median),
    baseline: "IM compare AE, PNG files " + Format.milliseconds(png.median),
    ratio: Format.ratio(decodeBothAndCompare.median / png.median),
    throughput: throughput(decodeBothAndCompare))
  table.note(
    "ImageMagick times are wall times of the whole `/usr/bin/compare` process: start-up, reading "
      + "files (from page cache) and, for PNG, its own decoding; nothing is subtracted.")
}

let tolerance = ImageComparison.tolerance(3)
let toleranceTiming = Timing.measure(repetitions: repetitions) {
  blackHole(tolerance.compare(drifted, to: reference))
}
let toleranceRate = Double(pixelCount) / toleranceTiming.median
table.add(
  "compare tolerance 3, 1% changed", ours: Format.milliseconds(toleranceTiming.median),
  throughput: throughput(toleranceTiming),
  target: "≥ 1 Gpx/s: \(Format.verdict(toleranceRate >= 1e9))")

let perceptual = ImageComparison.perceptual(threshold: 0.1)
let pixelmatch = PixelmatchJS.locate(anchors: options.anchors, script: options.pixelmatchScript)
switch pixelmatch {
case .success(let found): table.note("pixelmatch: \(found.index.path), run by \(found.node.path)")
case .failure(let failure): table.note("pixelmatch JS baseline SKIPPED: \(failure)")
}

perceptualRows("1% drift", drifted, files.actualRaw)
perceptualRows("text moved 1 px", textMoved, files.textMovedRaw)

let toleranceResult = tolerance.compare(drifted, to: reference)
let perceptualResult = perceptual.compare(drifted, to: reference)
checks.append("tolerance 3: \(toleranceResult)")
checks.append("perceptual 0.1: \(perceptualResult)")

// MARK: Verify step: a matching 800×600 reference

// What assertImage pays when the render matches: it reads the reference's digest chunk and
// hashes the rendered pixels with XXH3-128 (digest version 2); without a chunk it decodes the
// reference and compares.
let smallRender = Screenshot(width: 800, height: 600, seed: 99).image
let smallReferencePNG = try! PNGEncoder().encode(smallRender)
let decodeAndCompare = Timing.measure(repetitions: repetitions * 3) {
  let decoded = try! PNGDecoder().decode(smallReferencePNG)
  blackHole(ImageComparison.exact.compare(smallRender, to: decoded))
}
let digestCheck = Timing.measure(repetitions: repetitions * 3) {
  blackHole(PNGPixelDigest.read(fromPNG: smallReferencePNG)!.matches(smallRender))
}
let verifyRatio = digestCheck.median / decodeAndCompare.median
table.add(
  "verify 800×600 match: digest + XXH3-128", ours: Format.milliseconds(digestCheck.median),
  baseline: "decode + compare " + Format.milliseconds(decodeAndCompare.median),
  ratio: Format.ratio(verifyRatio),
  target: "≤ 0.25×: \(Format.verdict(verifyRatio <= 0.25))")
// The hash a version 1 digest needs, against the one version 2 uses, on the same render.
let renderSHA256 = Timing.measure(repetitions: repetitions * 3) {
  blackHole(smallRender.pixels.withUnsafeBytes(SHA256.digest))
}
let renderXXH3 = Timing.measure(repetitions: repetitions * 3) {
  blackHole(XXH3Digest(of: smallRender.pixels))
}
table.add(
  "hash an 800×600 render: XXH3-128", ours: Format.milliseconds(renderXXH3.median),
  baseline: "SHA-256 (libcrypto) " + Format.milliseconds(renderSHA256.median),
  ratio: Format.ratio(renderXXH3.median / renderSHA256.median), target: "—")
if PNGPixelDigest.read(fromPNG: smallReferencePNG)?.matches(smallRender) != true {
  checks.append("FAILED: the 800×600 reference's digest does not match its pixels")
}

if !options.comparisonsOnly {
  // MARK: PNG decode vs libpng

  @MainActor func decodeRow(_ name: String, _ png: [UInt8]) {
    let ours = Timing.measure(repetitions: repetitions) {
      blackHole(try! PNGDecoder().decode(png))
    }
    let libpng = Timing.measure(repetitions: repetitions) {
      blackHole(try! LibPNG.decode(png))
    }
    let ratio = ours.median / libpng.median
    table.add(
      name, ours: Format.milliseconds(ours.median),
      baseline: "libpng png_image " + Format.milliseconds(libpng.median),
      ratio: Format.ratio(ratio), throughput: throughput(ours),
      target: "≤ 1.1× libpng: \(Format.verdict(ratio <= 1.1))")
    let decoded = try! PNGDecoder().decode(png)
    let theirs = try! LibPNG.decode(png)
    if decoded.pixels != reference.pixels || theirs.pixels != reference.pixels {
      checks.append("FAILED: \(name) does not give back the original pixels")
    }
  }
  decodeRow("PNG decode (.fast file, \(Format.bytes(referencePNG.count)))", referencePNG)
  decodeRow("PNG decode (.small file, \(Format.bytes(referenceSmallPNG.count)))", referenceSmallPNG)

  // MARK: PNG encode

  let fastEncode = Timing.measure(repetitions: repetitions) {
    blackHole(try! PNGEncoder(setting: .fast).encode(reference))
  }
  let smallEncode = Timing.measure(repetitions: repetitions) {
    blackHole(try! PNGEncoder(setting: .small).encode(reference))
  }
  var libpngPNG: [UInt8] = []
  let libpngEncode = Timing.measure(repetitions: repetitions) {
    libpngPNG = try! LibPNG.encode(reference.pixels, width: side, height: side)
  }
  let encodeBudget = 0.1 * Double(pixelCount) / 4e6
  let sizeCost = Double(referencePNG.count) / Double(referenceSmallPNG.count) - 1
  table.add(
    "PNG encode .fast",
    ours: Format.milliseconds(fastEncode.median) + ", "
      + Format.bytes(referencePNG.count),
    baseline: ".small " + Format.milliseconds(smallEncode.median) + ", "
      + Format.bytes(referenceSmallPNG.count),
    ratio: Format.ratio(fastEncode.median / smallEncode.median), throughput: throughput(fastEncode),
    target:
      "≤ \(Format.milliseconds(encodeBudget)): \(Format.verdict(fastEncode.median <= encodeBudget))"
      + ", size \(Format.percent(sizeCost)) vs .small")
  table.add(
    "PNG encode .small",
    ours: Format.milliseconds(smallEncode.median) + ", "
      + Format.bytes(referenceSmallPNG.count),
    baseline: "libpng png_image " + Format.milliseconds(libpngEncode.median) + ", "
      + Format.bytes(libpngPNG.count),
    ratio: Format.ratio(smallEncode.median / libpngEncode.median),
    throughput: throughput(smallEncode)
  )
  if (try? PNGDecoder().decode(libpngPNG).pixels) != reference.pixels {
    checks.append("FAILED: libpng's encoding does not decode to the original pixels")
  }

}

table.note(
  "ratio = our median time ÷ baseline median time (below 1 is faster); throughput is ours, "
    + "pixels of one image per second.")
table.note(
  "pixelmatch JS times are node's own clock around the call alone (no start-up, no file "
    + "reading), median of \(repetitions) after 1 warm-up; ours use every core.")
table.note(
  "1% changed: \(pixelCount / 100) pixels in clusters of 1–25, 70% on edges; 75% drift 1–3 "
    + "levels, 18% 6–40, 7% 80–200.")

let cores = ProcessInfo.processInfo.activeProcessorCount
if let start = loadAtStart, let end = loadAverage() {
  let busy = max(start, end) > Double(cores) * 0.75
  table.note(
    "load average \(Format.fixed(start, 2)) at start, \(Format.fixed(end, 2)) at end on "
      + "\(cores) cores"
      + (busy
        ? ": the machine was busy, so these figures are slower than the code; rerun when idle"
        : ""))
}

print("")
print(table.render())
print("")
print("checks:")
for check in checks { print("  " + check) }
if options.keepImages != nil {
  print("images kept in \(folder.path)")
} else {
  try? FileManager.default.removeItem(at: folder)
}
print("total run time \(elapsed())")
