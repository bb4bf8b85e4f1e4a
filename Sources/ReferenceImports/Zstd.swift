import CZstd
import Foundation

/// Zstandard decompression with a hard bound on the output, whatever the frame declares.
enum Zstd {
  enum Failure: Error {
    /// The output would pass the limit; `size` is the declared size or a lower bound.
    case overLimit(size: Int)
    case damaged(String)
  }

  static func isFrame(_ bytes: [UInt8]) -> Bool {
    bytes.count >= 4 && bytes[0] == 0x28 && bytes[1] == 0xB5 && bytes[2] == 0x2F
      && bytes[3] == 0xFD
  }

  /// Decompresses every frame of `input`, refusing output over `limit` bytes: first by the
  /// size the frame declares, then while streaming, since a declaration can lie or be absent.
  static func decompress(_ input: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
    try decompress(input, limit: limit, stoppingAfter: nil)
  }

  /// The first `count` bytes of the output (fewer when it is shorter), decompressing no more
  /// than needed: enough to tell a PNG from a HEIC or JPEG file.
  static func prefix(_ input: [UInt8], count: Int) throws(Failure) -> [UInt8] {
    Array(try decompress(input, limit: Int.max, stoppingAfter: count).prefix(count))
  }

  private static func decompress(_ input: [UInt8], limit: Int, stoppingAfter wanted: Int?)
    throws(Failure) -> [UInt8]
  {
    let declared = input.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
    if declared == ZSTD_CONTENTSIZE_ERROR { throw .damaged("not a zstd frame") }
    if declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > UInt64(limit) {
      throw .overLimit(size: Int(clamping: declared))
    }
    guard let stream = contexts.take() else { throw .damaged("out of memory") }
    defer { contexts.give(stream) }
    var output: [UInt8] = []
    if declared != ZSTD_CONTENTSIZE_UNKNOWN { output.reserveCapacity(Int(declared)) }
    var chunk = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
    var last = 0
    var filled = false
    let failure: Failure? = input.withUnsafeBytes { source in
      var inBuffer = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: 0)
      repeat {
        let (status, produced) = chunk.withUnsafeMutableBytes { target in
          var outBuffer = ZSTD_outBuffer(dst: target.baseAddress, size: target.count, pos: 0)
          let status = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
          return (status, outBuffer.pos)
        }
        if ZSTD_isError(status) != 0 {
          return .damaged(String(cString: ZSTD_getErrorName(status)))
        }
        guard output.count + produced <= limit else {
          return .overLimit(size: output.count + produced)
        }
        output.append(contentsOf: chunk[0..<produced])
        last = status
        // A full output buffer may leave more to flush even with no input left.
        filled = produced == chunk.count
        if let wanted, output.count >= wanted { return nil }
      } while inBuffer.pos < inBuffer.size || filled
      return nil
    }
    if let failure { throw failure }
    // A non-zero hint after all input is consumed: the frame ends early.
    if last != 0 && wanted.map({ output.count < $0 }) ?? true {
      throw .damaged("the frame is cut short")
    }
    return output
  }

  /// Decompression contexts kept for reuse: creating one costs more than decompressing a
  /// small object, and a merge reads thousands.
  private static let contexts = ContextPool()

  private final class ContextPool: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [OpaquePointer] = []

    func take() -> OpaquePointer? {
      lock.lock()
      defer { lock.unlock() }
      guard let context = free.popLast() else { return ZSTD_createDStream() }
      // A context left mid-frame by an error starts clean.
      ZSTD_DCtx_reset(context, ZSTD_reset_session_only)
      return context
    }

    func give(_ context: OpaquePointer) {
      lock.lock()
      defer { lock.unlock() }
      if free.count < 16 { free.append(context) } else { ZSTD_freeDStream(context) }
    }
  }
}
