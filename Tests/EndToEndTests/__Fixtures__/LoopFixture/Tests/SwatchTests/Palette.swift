import ReferenceImageTesting

/// Swatches whose render a change moves, by number: the number's square gets this shade.
/// The end-to-end test edits this line the way a pull request would.
let changedSwatches: [Int: UInt8] = [:]

/// Swatch `number`: a 24 × 24 gradient of its own, with a 6 × 6 square whose shade
/// `changedSwatches` may change.
func swatch(_ number: Int) -> RGBAImage {
  var pixels: [UInt8] = []
  pixels.reserveCapacity(24 * 24 * 4)
  let mark = changedSwatches[number] ?? 255
  for y in 0..<24 {
    for x in 0..<24 {
      let inSquare = (9..<15).contains(x) && (9..<15).contains(y)
      pixels += [
        UInt8((number * 5 + x * 4) % 256), UInt8((y * 9) % 256),
        inSquare ? mark : UInt8((number * 37) % 256), 255,
      ]
    }
  }
  // The size and the buffer agree, so this cannot throw.
  return try! RGBAImage(width: 24, height: 24, pixels: pixels)
}

/// Asserts swatches `range`, each under its own name.
func assertSwatches(_ range: Range<Int>, file: StaticString = #filePath, line: UInt = #line) {
  for number in range {
    assertImage(
      swatch(number), named: "swatch-\(number < 10 ? "0" : "")\(number)", filePath: file,
      line: line)
  }
}
