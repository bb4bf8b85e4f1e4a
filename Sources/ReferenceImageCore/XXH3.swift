import CXXHash

/// An XXH3 128-bit hash (xxHash, seed 0): the pixel digest's fast, non-cryptographic check.
///
/// It decides "these are the reference's pixels" in a verify run, more than ten times faster than
/// SHA-256 (`Documentation/Benchmarks.md`, "xxHash"); SHA-256 stays the identity that manifests,
/// merges and approvals bind to. Collisions by chance are as unlikely as SHA-256's for this use
/// (2^-128), but anyone can construct one on purpose, so it never stands in for SHA-256 where a
/// file's identity is proven.
public struct XXH3Digest: Hashable, Sendable, CustomStringConvertible {
  /// The 16 bytes in xxHash's canonical order (big-endian, high half first).
  public let bytes: [UInt8]

  /// The hash of some bytes (`XXH3_128bits`).
  public init(of data: UnsafeRawBufferPointer) {
    var digest = [UInt8](repeating: 0, count: 16)
    digest.withUnsafeMutableBufferPointer {
      ri_xxh3_128(data.baseAddress, data.count, $0.baseAddress)
    }
    bytes = digest
  }

  /// The hash of a byte array.
  public init(of data: [UInt8]) {
    self = data.withUnsafeBytes { XXH3Digest(of: $0) }
  }

  /// A digest from its 16 canonical bytes, as stored in a file.
  package init(canonicalBytes: some Collection<UInt8>) {
    precondition(canonicalBytes.count == 16, "an XXH3 128-bit digest has 16 bytes")
    bytes = Array(canonicalBytes)
  }

  /// 32 lowercase hex digits, as `xxhsum -H2` prints them.
  public var description: String { SHA256.hexString(bytes) }

  /// A hash fed in pieces, for data that is not contiguous (a PNG's IDAT chunks).
  package final class Hasher {
    private let stream: OpaquePointer

    package init() {
      guard let stream = ri_xxh3_stream_new() else {
        preconditionFailure("no memory for an XXH3 state")
      }
      self.stream = stream
    }

    deinit { ri_xxh3_stream_free(stream) }

    package func update(_ data: UnsafeRawBufferPointer) {
      guard data.count > 0 else { return }
      ri_xxh3_stream_update(stream, data.baseAddress, data.count)
    }

    package func finish() -> XXH3Digest {
      var digest = [UInt8](repeating: 0, count: 16)
      digest.withUnsafeMutableBufferPointer { ri_xxh3_stream_digest(stream, $0.baseAddress) }
      return XXH3Digest(canonicalBytes: digest)
    }
  }
}
