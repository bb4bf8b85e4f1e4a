import CLibDeflate

/// The single owner of one libdeflate compressor (`libdeflate_alloc_compressor`, freed by
/// `libdeflate_free_compressor`). Level 12 is libdeflate's strongest: near-optimal parsing,
/// within a few percent of zopfli's deflate at a small fraction of its time.
final class LibDeflateCompressor {
  let pointer: OpaquePointer

  /// Allocates a compressor for `level` (1…12); nil when libdeflate cannot.
  init?(level: Int32) {
    guard let pointer = libdeflate_alloc_compressor(level) else { return nil }
    self.pointer = pointer
  }

  deinit { libdeflate_free_compressor(pointer) }

  /// A complete zlib stream of `input` (`libdeflate_zlib_compress`): header, deflate data,
  /// Adler-32. Empty when the output does not fit the bound, which libdeflate rules out.
  func zlib(_ input: UnsafeRawBufferPointer) -> [UInt8] {
    let bound = libdeflate_zlib_compress_bound(pointer, input.count)
    return [UInt8](unsafeUninitializedCapacity: bound) { output, count in
      count = libdeflate_zlib_compress(
        pointer, input.baseAddress, input.count, output.baseAddress, bound)
    }
  }
}
