import Foundation

extension PNGDecoder {
  /// Pixel memory handed from one decode to the next, for loops that decode one file after
  /// another and look at each image only briefly: a merge hashing destination files that carry
  /// no pixel digest, a verify run comparing renders with references. Each decode into kept
  /// memory writes pages that are already mapped instead of having fresh ones faulted in
  /// (`decode(_:reusing:)`); glibc hands a freed buffer below 32 MiB back to the next
  /// allocation too, but not one above, and not once it has trimmed its heap.
  ///
  /// Safe with any image: memory still shared with a copy elsewhere is copied before it is
  /// written (the array's copy on write), so a recycled image whose copies live on costs a copy
  /// instead of a fresh buffer, and never changes a pixel someone holds.
  package final class Recycler: @unchecked Sendable {
    /// The process's recycler, shared by the call sites that decode and drop.
    package static let shared = Recycler()

    /// At most this many images are kept: one per concurrent decode on a small machine.
    static let maximumKept = 4

    /// Images above this many pixel bytes are not kept: their memory would outlive its use.
    static let maximumKeptBytes = 64 << 20

    /// Images below this many pixel bytes are not kept: the allocator reuses such small buffers
    /// by itself, and keeping them only adds locking to every decode of many small files.
    static let minimumKeptBytes = 1 << 20

    private let lock = NSLock()
    private var spares: [RGBAImage] = []

    /// How many images are kept now.
    var keptCount: Int { lock.withLock { spares.count } }

    /// Creates an empty recycler.
    package init() {}

    /// Decodes PNG bytes into the memory of a kept image, when there is one.
    /// - Parameters:
    ///   - data: The PNG bytes.
    ///   - decoder: The decoder, with its limits.
    /// - Returns: The decoded image; the same pixels as `decoder.decode(data)`.
    /// - Throws: `PNGError` for anything that is not a valid PNG within the limits.
    package func decode(
      _ data: some ContiguousBytes, with decoder: PNGDecoder = PNGDecoder()
    ) throws(PNGError) -> RGBAImage {
      guard let spare = lock.withLock({ spares.popLast() }) else {
        return try decoder.decode(data)
      }
      return try decoder.decode(data, reusing: spare)
    }

    /// Keeps an image's memory for a later decode. Give only images whose other copies are
    /// dropped before the next decode (otherwise that decode copies the memory first).
    /// - Parameter image: An image the caller is done with.
    package func recycle(_ image: consuming RGBAImage) {
      let kept = image
      guard (Self.minimumKeptBytes...Self.maximumKeptBytes).contains(kept.pixels.capacity) else {
        return
      }
      lock.withLock {
        if spares.count < Self.maximumKept { spares.append(kept) }
      }
    }
  }
}
