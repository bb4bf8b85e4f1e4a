import CSpng

/// The single owner of one libspng context (`spng_ctx_new`, freed by `spng_ctx_free`).
final class SpngContext {
  let pointer: OpaquePointer

  /// Creates a decoder or encoder context.
  /// - Throws: `PNGError.outOfMemory` when libspng cannot allocate one.
  init(encoder: Bool) throws(PNGError) {
    guard let pointer = spng_ctx_new(encoder ? Int32(SPNG_CTX_ENCODER.rawValue) : 0) else {
      throw .outOfMemory
    }
    self.pointer = pointer
  }

  deinit { spng_ctx_free(pointer) }

  /// Turns a libspng status code into a Swift error, naming the step that failed.
  func check(_ status: Int32, _ step: String) throws(PNGError) {
    guard status == 0 else {
      throw PNGError.libspng(step: step, code: status, message: Self.message(status))
    }
  }

  static func message(_ status: Int32) -> String {
    guard let text = spng_strerror(status) else { return "error \(status)" }
    return String(cString: text)
  }
}
