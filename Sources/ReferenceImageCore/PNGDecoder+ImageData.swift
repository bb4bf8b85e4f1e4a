import CLibDeflate
import CPNGUnfilter
import Foundation

extension PNGDecoder {
  /// The zlib stream of the image data, which may be split over several IDAT chunks.
  struct ImageData {
    var bytes: UnsafeRawBufferPointer
    var ranges: [Range<Int>]

    /// The total length of the zlib stream.
    var count: Int { ranges.reduce(0) { $0 + $1.count } }

    /// Runs `body` with the stream in one piece: the file's own bytes for a single IDAT, a
    /// joined copy otherwise (compressed data, small beside the image).
    ///
    /// Files from libpng and Pillow split their data into chunks of 8–64 KiB, so a noisy
    /// image's joined copy is as large as its pixels. The copy is made in the memory the last
    /// join left in `SpareJoinBuffer`, whose pages are already mapped: a fresh 16 MB buffer
    /// costs about a thousand page faults, a quarter of such a decode's time.
    /// - Parameters:
    ///   - joiningOnTwoCores: Whether two threads join the chunks, each half of them.
    ///   - body: Receives the stream.
    func withStream<Result>(
      joiningOnTwoCores: Bool = false, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
      if ranges.count == 1 { return body(UnsafeRawBufferPointer(rebasing: bytes[ranges[0]])) }
      let total = count
      var joined = SpareJoinBuffer.shared.take(atLeast: total)
      joined.withUnsafeMutableBytes { target in
        guard joiningOnTwoCores else { return copy(chunks: ranges.indices, into: target) }
        nonisolated(unsafe) let (target, data) = (target, self)
        let middle = ranges.count / 2
        DispatchQueue.concurrentPerform(iterations: 2) { half in
          data.copy(chunks: half == 0 ? 0..<middle : middle..<data.ranges.count, into: target)
        }
      }
      defer { SpareJoinBuffer.shared.keep(joined) }
      return joined.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<total])) }
    }

    /// Copies the data of some chunks where it belongs in the joined stream.
    private func copy(chunks: Range<Int>, into target: UnsafeMutableRawBufferPointer) {
      var offset = ranges[..<chunks.lowerBound].reduce(0) { $0 + $1.count }
      for range in ranges[chunks] {
        UnsafeMutableRawBufferPointer(rebasing: target[offset..<(offset + range.count)])
          .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[range]))
        offset += range.count
      }
    }

    /// Whether every IDAT chunk's CRC matches its type and data.
    func chunkCRCsAreValid() -> Bool {
      ranges.allSatisfy { Self.crcIsValid(of: $0, in: bytes) }
    }

    /// Whether the CRC after a chunk's data matches its type and data.
    /// - Parameter data: The chunk's data, which its type precedes and its CRC follows.
    static func crcIsValid(of data: Range<Int>, in bytes: UnsafeRawBufferPointer) -> Bool {
      let typeAndData = UnsafeRawBufferPointer(
        rebasing: bytes[(data.lowerBound - 4)..<data.upperBound])
      let crc = libdeflate_crc32(0, typeAndData.baseAddress, typeAndData.count)
      return crc == PNGChunks.bigEndianWord(bytes, at: data.upperBound)
    }
  }
}

/// One buffer for joining split image data, handed from one decode to the next so that its
/// pages stay mapped. A decode takes it (another decode running at the same time gets a fresh
/// one) and gives it back; buffers above `maximumKept` bytes are freed instead of kept.
final class SpareJoinBuffer: @unchecked Sendable {
  /// The process's one spare buffer.
  static let shared = SpareJoinBuffer()

  /// The largest buffer kept between decodes: the image data of a 4,000 × 4,000 screenshot
  /// of noise; a larger one is rare enough to pay its page faults.
  static let maximumKept = 64 << 20

  private let lock = NSLock()
  private var spare: [UInt8] = []

  /// The spare buffer when it holds at least `count` bytes (its contents are stale), or a
  /// fresh one of `count` bytes.
  func take(atLeast count: Int) -> [UInt8] {
    var taken: [UInt8] = []
    lock.withLock { swap(&taken, &spare) }
    if taken.count >= count { return taken }
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      if count >= PNGDecoder.hugePageThreshold {
        ri_advise_huge_pages(UnsafeMutableRawPointer(buffer.baseAddress), count)
      }
      initialized = count
    }
  }

  /// Keeps `buffer` for the next join, unless it is too large or a larger one is kept.
  func keep(_ buffer: [UInt8]) {
    guard buffer.count <= Self.maximumKept else { return }
    lock.withLock {
      if buffer.count > spare.count { spare = buffer }
    }
  }
}
