import CLibDeflate

/// The single owner of one libdeflate decompressor (`libdeflate_alloc_decompressor`, freed by
/// `libdeflate_free_decompressor`): about 10 KB of tables, so one per decode costs nothing
/// beside the image.
package final class LibDeflateDecompressor {
  let pointer: OpaquePointer

  /// Allocates a decompressor; nil when libdeflate cannot.
  package init?() {
    guard let pointer = libdeflate_alloc_decompressor() else { return nil }
    self.pointer = pointer
  }

  deinit { libdeflate_free_decompressor(pointer) }

  /// Inflates a complete zlib stream (`libdeflate_zlib_decompress_ex`: header, deflate data,
  /// Adler-32 checked) into exactly `output.count` bytes.
  /// - Returns: Whether the stream was valid, filled the output exactly and used every input
  ///   byte; anything else is for the caller's slower, stricter path to judge.
  func inflateZlib(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
    -> Bool
  {
    var consumed = 0
    var produced = 0
    let status = libdeflate_zlib_decompress_ex(
      pointer, input.baseAddress, input.count, output.baseAddress, output.count, &consumed,
      &produced)
    return status == LIBDEFLATE_SUCCESS && consumed == input.count && produced == output.count
  }

  /// Inflates raw deflate data (`libdeflate_deflate_decompress_ex`) into exactly
  /// `output.count` bytes, using every input byte.
  package func inflateRaw(
    _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
  )
    -> Bool
  {
    var consumed = 0
    var produced = 0
    let status = libdeflate_deflate_decompress_ex(
      pointer, input.baseAddress, input.count, output.baseAddress, output.count, &consumed,
      &produced)
    return status == LIBDEFLATE_SUCCESS && consumed == input.count && produced == output.count
  }
}
