/// Why PNG data could not be decoded or encoded.
public enum PNGError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The data does not start with the 8-byte PNG signature.
  case notPNG(byteCount: Int)
  /// The image is larger than the decoder's limits allow.
  case tooLarge(width: Int, height: Int, limits: PNGDecoder.Limits)
  /// libspng rejected the data: truncation, a bad CRC, a malformed chunk, a zlib error.
  case libspng(step: String, code: Int32, message: String)
  /// An allocation failed.
  case outOfMemory
  /// The data is a Git LFS pointer file, not the PNG it stands for: Git LFS has not fetched it.
  case gitLFSPointer(GitLFSPointer)

  public var description: String {
    switch self {
    case .notPNG(let count):
      return "not a PNG file: the \(count) bytes do not start with the PNG signature"
    case .tooLarge(let width, let height, let limits):
      return
        "PNG of \(width)×\(height) exceeds the decoder limits (\(limits.maximumWidth)×"
        + "\(limits.maximumHeight), \(limits.maximumDecodedBytes) decoded bytes); raise "
        + "PNGDecoder.Limits if the image is legitimate"
    case .libspng(let step, _, let message):
      return "malformed PNG (\(step)): \(message)"
    case .outOfMemory:
      return "out of memory while processing a PNG"
    case .gitLFSPointer(let pointer):
      return "not a PNG but \(pointer): the image was never fetched; run `git lfs pull` "
        + "(after `git lfs install` if Git LFS is new on this machine)"
    }
  }
}
