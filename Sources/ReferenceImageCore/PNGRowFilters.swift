import Foundation

/// PNG's five row filters (RFC 2083 §6) applied to packed rows, with the filter of each row
/// chosen by a strategy. Which strategy deflates smallest depends on the image, so the compact
/// writer tries several (see `CompactPNGWriter`).
enum PNGFilterStrategy: CaseIterable {
  /// Filter 0 on every row: best for palettes and sub-byte samples, whose bytes are not
  /// quantities that differences make smaller.
  case none
  /// Per row, the filter whose bytes, read as signed, have the smallest sum of magnitudes:
  /// the PNG specification's suggestion, and libpng's.
  case minimumSum
  /// Per row, the filter whose bytes have the fewest distinct values, weighted by count (the
  /// lowest Shannon entropy): better than the sum where a row repeats a few large differences.
  case entropy
}

struct PNGRowFilters {
  /// The bytes of one unfiltered row.
  var rowBytes: Int
  /// How far left the corresponding byte of the previous pixel lies (`PNGColourForm.filterStride`).
  var stride: Int
  /// The filter types a row may use.
  var types: [UInt8] = [0, 1, 2, 3, 4]

  /// Filters every row of `rows` (`height` rows of `rowBytes`) with `strategy`.
  /// - Returns: The filtered data: each row preceded by its filter type byte.
  func filter(_ rows: [UInt8], strategy: PNGFilterStrategy) -> [UInt8] {
    let height = rows.count / max(rowBytes, 1)
    let filteredRow = rowBytes + 1
    let zeros = [UInt8](repeating: 0, count: rowBytes)
    // The five filtered versions of the row at hand, each after its filter byte.
    var scratch = [UInt8](repeating: 0, count: 5 * filteredRow)
    var counts = [Int](repeating: 0, count: 256)
    let weights = strategy == .entropy ? Self.entropyWeights(upTo: rowBytes) : []
    return [UInt8](unsafeUninitializedCapacity: height * filteredRow) { output, count in
      count = height * filteredRow
      rows.withUnsafeBufferPointer { rows in
        zeros.withUnsafeBufferPointer { zeros in
          scratch.withUnsafeMutableBufferPointer { scratch in
            for y in 0..<height {
              let current = rows.baseAddress! + y * rowBytes
              let above = y == 0 ? zeros.baseAddress! : current - rowBytes
              let target = output.baseAddress! + y * filteredRow
              if strategy == .none {
                target[0] = 0
                (target + 1).update(from: current, count: rowBytes)
                continue
              }
              var best = (type: 0, score: Double.infinity)
              for type in types.map(Int.init) {
                let candidate = scratch.baseAddress! + type * filteredRow
                candidate[0] = UInt8(type)
                apply(type, current, above, into: candidate + 1)
                let bytes = UnsafeBufferPointer(start: candidate + 1, count: rowBytes)
                let score =
                  strategy == .entropy ? entropy(bytes, weights, &counts) : Self.sum(bytes)
                if score < best.score { best = (type, score) }
              }
              target.update(
                from: scratch.baseAddress! + best.type * filteredRow, count: filteredRow)
            }
          }
        }
      }
    }
  }

  /// Filter `type` of one row into `target`.
  private func apply(
    _ type: Int, _ current: UnsafePointer<UInt8>, _ above: UnsafePointer<UInt8>,
    into target: UnsafeMutablePointer<UInt8>
  ) {
    let count = rowBytes
    let left = min(stride, count)
    switch type {
    case 0:
      target.update(from: current, count: count)
    case 1:
      target.update(from: current, count: left)
      for i in left..<count { target[i] = current[i] &- current[i - stride] }
    case 2:
      for i in 0..<count { target[i] = current[i] &- above[i] }
    case 3:
      for i in 0..<left { target[i] = current[i] &- above[i] >> 1 }
      for i in left..<count {
        target[i] = current[i] &- UInt8((Int(current[i - stride]) + Int(above[i])) >> 1)
      }
    default:
      for i in 0..<left { target[i] = current[i] &- above[i] }
      for i in left..<count {
        target[i] =
          current[i]
          &- Self.paeth(current[i - stride], above[i], above[i - stride])
      }
    }
  }

  /// The Paeth predictor: whichever of left, above and upper-left is nearest to
  /// left + above - upper-left, in that order of preference.
  private static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
    let (a, b, c) = (Int(a), Int(b), Int(c))
    let pa = abs(b - c)
    let pb = abs(a - c)
    let pc = abs(a + b - 2 * c)
    if pa <= pb && pa <= pc { return UInt8(a) }
    return pb <= pc ? UInt8(b) : UInt8(c)
  }

  /// The sum of the bytes' magnitudes read as signed.
  private static func sum(_ bytes: UnsafeBufferPointer<UInt8>) -> Double {
    var total = 0
    for byte in bytes { total &+= Int(min(byte, 0 &- byte)) }
    return Double(total)
  }

  /// The row's entropy in bits, up to the constant n·log2(n): −Σ c·log2(c) over the counts.
  private func entropy(
    _ bytes: UnsafeBufferPointer<UInt8>, _ weights: [Double], _ counts: inout [Int]
  ) -> Double {
    counts.withUnsafeMutableBufferPointer { counts in
      counts.update(repeating: 0)
      for byte in bytes { counts[Int(byte)] &+= 1 }
      return weights.withUnsafeBufferPointer { weights in
        var total = 0.0
        for count in counts where count > 1 { total -= weights[count] }
        return total
      }
    }
  }

  /// c·log2(c) for every count a row can reach.
  private static func entropyWeights(upTo count: Int) -> [Double] {
    (0...count).map { $0 == 0 ? 0 : Double($0) * log2(Double($0)) }
  }
}
