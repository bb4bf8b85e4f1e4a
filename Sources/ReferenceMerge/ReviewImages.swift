import Foundation
import ReferenceArchive
import ReferenceImageCore

/// What a review report reads of a merge, and all it reads: the current reference at a path
/// (a card's "before") from the destination, and the planned images (its "after", a conflict's
/// rivals) from their sources. The report renders the finished plan through this reader, so
/// the merge's destination and source readers stay the merge's own.
public struct ReviewImages: Sendable {
  private let destination: Destination
  private let sources: [MergeSource]
  private let limits: ArchiveLimits

  /// The reader a merge hands its report: the references through the merge's own view of the
  /// destination, the images from the plan's sources within the request's limits.
  /// - Parameters:
  ///   - plan: The finished plan, not yet applied.
  ///   - request: The merge's report request.
  public init(plan: MergePlan, request: ReportRequest) {
    destination = request.destination
    sources = plan.inventories.map(\.source)
    limits = request.limits
  }

  /// A reader for a plan on its own: opens the plan's destination.
  /// - Parameters:
  ///   - plan: The plan, not yet applied.
  ///   - limits: The limits for reading the sources again.
  /// - Throws: `MergeError.io` when the destination cannot be opened.
  public init(plan: MergePlan, limits: ArchiveLimits = .default) throws(MergeError) {
    destination = try Destination(root: plan.destination)
    sources = plan.inventories.map(\.source)
    self.limits = limits
  }

  /// The bytes of the current reference at a path, as the destination holds them.
  /// - Parameter path: The package-relative path.
  /// - Returns: nil when there is no regular file there (nothing, a link, a folder), or when
  ///   it is a Git LFS pointer, whose image was never fetched.
  public func reference(at path: String) -> [UInt8]? {
    guard let bytes = destination.referenceBytes(path), !GitLFSPointer.isPointer(bytes) else {
      return nil
    }
    return bytes
  }

  /// A current reference with its pixels.
  public struct DecodedReference: Sendable {
    /// The file's bytes.
    public var bytes: [UInt8]
    /// Its pixels; nil when the file is not a PNG that decodes.
    public var image: RGBAImage?
    /// The SHA-256 of its pixels: its own pixel digest chunk's when the chunk vouches for the
    /// file, else the hash of the pixels decoded; nil when it does not decode.
    public var pixelSHA256: SHA256Digest?
  }

  /// The current reference at a path, decoded into memory an earlier decode left
  /// (`PNGDecoder.Recycler.shared`), so a report that decodes one reference after another
  /// reuses the same pages; give the image back to that recycler when done with it.
  /// - Parameter path: The package-relative path.
  /// - Returns: nil when `reference(at:)` is nil.
  public func decodedReference(at path: String) -> DecodedReference? {
    guard let bytes = reference(at: path) else { return nil }
    let image = try? PNGDecoder.Recycler.shared.decode(bytes)
    let digest =
      PNGPixelDigest.read(fromPNG: bytes)?.pixelSHA256
      ?? image.map { decoded in decoded.pixels.withUnsafeBytes { SHA256Digest(of: $0) } }
    return DecodedReference(bytes: bytes, image: image, pixelSHA256: digest)
  }

  /// One image read back from a source.
  public struct SourceImage: Sendable {
    /// The source's index in the plan's `inventories`.
    public var sourceIndex: Int
    /// The package-relative path.
    public var path: String
    /// The entry's bytes, as the source holds them.
    public var bytes: [UInt8]
  }

  /// Reads the wanted images of the plan's sources, each source once, and hands them to `body`
  /// in batches of about `batchBytes` (at least one image): sources in index order, each
  /// source's images in the order it holds them. The next batch is read on a thread of its own
  /// while `body` works on the current one, so reading and what the caller does with the images
  /// (on every core) go on at once; at most two batches are held. A source that cannot be read
  /// again yields what it could: its other images are missing from the batches.
  /// - Parameters:
  ///   - wanted: The paths wanted, by source index.
  ///   - batchBytes: The bytes of images after which a batch is handed over.
  ///   - body: Receives each batch, on the calling thread; an error it throws stops the reading.
  /// - Throws: What `body` throws.
  public func forEachImage<Failure: Error>(
    in wanted: [Int: Set<String>], batchBytes: Int,
    _ body: ([SourceImage]) throws(Failure) -> Void
  ) throws(Failure) {
    try forEachImage(
      of: wanted.filter { !$0.value.isEmpty }.keys.sorted(),
      wants: { wanted[$0]?.contains($1) ?? false }, batchBytes: batchBytes, body)
  }

  /// Reads the images of the given sources that `wants` asks for, as `forEachImage(in:)`
  /// does: for a caller whose table of wanted paths would cost a string an image (a report of
  /// a whole fleet), where it can answer from what it holds.
  /// - Parameters:
  ///   - sourceIndices: The sources to read, in the order to read them.
  ///   - wants: Whether the entry at a path of the source at an index is wanted; asked on the
  ///     reading thread.
  ///   - batchBytes: The bytes of images after which a batch is handed over.
  ///   - body: Receives each batch, on the calling thread; an error it throws stops the reading.
  /// - Throws: What `body` throws.
  public func forEachImage<Failure: Error>(
    of sourceIndices: [Int], wants: @escaping @Sendable (Int, String) -> Bool, batchBytes: Int,
    _ body: ([SourceImage]) throws(Failure) -> Void
  ) throws(Failure) {
    let queue = BatchQueue()
    let (sources, limits) = (sources, limits)
    let reader = Thread {
      Self.read(
        sourceIndices, wants: wants, of: sources, limits: limits, batchBytes: batchBytes,
        into: queue)
    }
    reader.start()
    // Also when `body` throws: the reader stops, and is gone before this returns.
    defer { queue.cancelAndWait() }
    while let batch = queue.take() {
      try body(batch)
    }
  }

  /// What the reading thread throws to stop a source's reading once the caller stopped.
  private static let stopped = MergeError.io(
    operation: "read the review's images", path: "", message: "the report stopped")

  /// The reading thread's work: the wanted entries, batch by batch, until done or cancelled.
  private static func read(
    _ sourceIndices: [Int], wants: (Int, String) -> Bool, of sources: [MergeSource],
    limits: ArchiveLimits, batchBytes: Int, into queue: BatchQueue
  ) {
    var batch: [SourceImage] = []
    var bytes = 0
    for index in sourceIndices {
      guard sources.indices.contains(index) else { continue }
      try? SourceReader(limits: limits).forEachEntry(
        of: sources[index], wantsData: { wants(index, $0) }
      ) { (entry) throws(MergeError) in
        guard wants(index, entry.path) else { return }
        batch.append(SourceImage(sourceIndex: index, path: entry.path, bytes: entry.bytes))
        bytes += entry.bytes.count
        guard bytes >= batchBytes else { return }
        guard queue.put(batch) else { throw Self.stopped }
        (batch, bytes) = ([], 0)
      }
      if queue.isCancelled { break }
    }
    if !batch.isEmpty { _ = queue.put(batch) }
    queue.finish()
  }
}

/// Batches passed from the reading thread to the caller: at most one waits while the caller
/// works on another, so memory holds two batches whatever the number of images.
private final class BatchQueue: @unchecked Sendable {
  private let condition = NSCondition()
  private var waiting: [ReviewImages.SourceImage]?
  private var finished = false
  private var cancelled = false

  /// Whether the caller stopped taking batches.
  var isCancelled: Bool {
    condition.lock()
    defer { condition.unlock() }
    return cancelled
  }

  /// Hands over a batch, waiting while the previous one is not yet taken.
  /// - Returns: false when the caller stopped taking batches.
  func put(_ batch: [ReviewImages.SourceImage]) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while waiting != nil && !cancelled { condition.wait() }
    guard !cancelled else { return false }
    waiting = batch
    condition.broadcast()
    return true
  }

  /// Says that no batch follows.
  func finish() {
    condition.lock()
    finished = true
    condition.broadcast()
    condition.unlock()
  }

  /// The next batch; nil once the reader finished and every batch was taken.
  func take() -> [ReviewImages.SourceImage]? {
    condition.lock()
    defer { condition.unlock() }
    while waiting == nil && !finished { condition.wait() }
    let batch = waiting
    waiting = nil
    condition.broadcast()
    return batch
  }

  /// Stops the reader at its next batch and waits until it has finished; the caller takes no
  /// more.
  func cancelAndWait() {
    condition.lock()
    defer { condition.unlock() }
    cancelled = true
    waiting = nil
    condition.broadcast()
    while !finished { condition.wait() }
  }
}
