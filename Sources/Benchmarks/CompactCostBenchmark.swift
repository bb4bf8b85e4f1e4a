import Foundation
import ReferenceImageCore

/// What reading compact references costs where it matters, against the `.fast` file of the same
/// pixels, in the same run: a failing verify (decode the reference, compare perceptually with a
/// difference image, encode the actual, reference and difference artifacts, as
/// `FailureArtifacts` does) and the merge's comparison of an update (decode the reference and
/// the incoming render, count the differing pixels). The render is the reference with 1% of its
/// pixels drifted.
enum CompactCostBenchmark {
  static func run(files: [String], repetitions: Int) {
    print(
      "reading compact references, median of \(repetitions): .fast reference → compact "
        + "reference, same pixels")
    for path in files {
      let bytes = try! [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      let image = try! PNGDecoder().decode(bytes)
      let render = RenderDrift.apply(to: image, fraction: 0.01, seed: 7)
      let renderPNG = try! PNGEncoder().encode(render)
      let fast = try! PNGEncoder(setting: .fast).encode(image)
      let compact = try! PNGEncoder(setting: .compact).encode(image)
      let name = "\((path as NSString).lastPathComponent), \(image.width)×\(image.height)"
      let kind = "IHDR colour type \(compact[25]), \(compact[24]) bits"
      print("\(name) (\(kind)):")
      for (label, body) in [
        ("failing verify", { (reference: [UInt8]) in failingVerify(reference, render) }),
        ("merge comparison", { (reference: [UInt8]) in mergeComparison(reference, renderPNG) }),
        ("decode alone", { (reference: [UInt8]) in _ = try! PNGDecoder().decode(reference) }),
      ] {
        let before = Timing.measure(repetitions: repetitions) { body(fast) }.median
        let after = Timing.measure(repetitions: repetitions) { body(compact) }.median
        print(
          "  \(label): \(Format.fixed(before * 1000, 3)) → \(Format.fixed(after * 1000, 3)) ms "
            + "(\(Format.fixed(after / before, 2))×)")
      }
    }
  }

  private static func failingVerify(_ reference: [UInt8], _ render: RGBAImage) {
    let expected = try! PNGDecoder().decode(reference)
    let comparison = ImageComparison.perceptual()
    let (_, difference) = comparison.compareWithDifferenceImage(render, to: expected)
    for artifact in [render, expected, difference] {
      blackHole(try! PNGEncoder().encode(artifact))
    }
  }

  private static func mergeComparison(_ reference: [UInt8], _ renderPNG: [UInt8]) {
    let expected = try! PNGDecoder().decode(reference)
    let actual = try! PNGDecoder().decode(renderPNG)
    blackHole(ImageComparison.perceptual().compare(actual, to: expected))
  }
}
