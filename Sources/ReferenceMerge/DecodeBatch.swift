import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Images that must be decoded to learn their pixels (no manifest record vouches for them),
/// gathered in bounded batches: each batch is hashed, staged and decoded on every core while
/// the next one is read, so memory holds at most two batches of PNG bytes. Entries with the
/// same bytes as one already decoded in this source take its result (equal bytes decode to
/// equal pixels), so a set of repeated images is decoded once per distinct file.
struct DecodeBatch {
  /// Stages an entry (bytes, PNG SHA-256, path) if the destination does not hold it yet.
  typealias Stager = @Sendable ([UInt8], SHA256Digest, String) -> Void

  /// An entry; its PNG hash is nil until computed (and the entry staged) in the background.
  private typealias Entry = (path: String, bytes: [UInt8], pngSHA256: SHA256Digest?)

  /// What decoding a file taught: its size and pixel hash.
  private typealias Decoded = (width: Int, height: Int, pixelSHA256: SHA256Digest)

  /// The results of files already decoded, by PNG hash. Only the background task of the batch
  /// in flight touches it, and batches run one at a time.
  private final class DecodedFiles: @unchecked Sendable {
    var byPNGSHA256: [SHA256Digest: Decoded] = [:]
    /// Bounds the memory of a source of many distinct files (about 200 bytes per file); past
    /// it, new files are decoded every time they occur.
    let capacity = 4096
  }

  /// A batch decoding in the background.
  private final class InFlight: @unchecked Sendable {
    let entries: [Entry]
    let paths: Set<String>
    let group = DispatchGroup()
    // Written by the decoding task before it leaves `group`; read after `group.wait()`.
    var results: [Result<SourceInventory.Image, PNGError>] = []

    init(entries: [Entry], paths: Set<String>) {
      self.entries = entries
      self.paths = paths
    }
  }

  private var entries: [Entry] = []
  private var paths = Set<String>()
  private var byteCount = 0
  private var inFlight: InFlight?
  private let decodedFiles = DecodedFiles()

  var isFull: Bool { entries.count >= 256 || byteCount >= 16 << 20 }

  func contains(_ path: String) -> Bool {
    paths.contains(path) || inFlight?.paths.contains(path) == true
  }

  /// Adds an entry; without `pngSHA256`, it is hashed and staged when the batch is submitted.
  mutating func add(_ path: String, _ bytes: [UInt8], pngSHA256: SHA256Digest? = nil) {
    entries.append((path, bytes, pngSHA256))
    paths.insert(path)
    byteCount += bytes.count
  }

  /// Adds the images of the batch in flight, then starts this one in the background.
  /// - Throws: The error of the first entry, in entry order, that is not a valid PNG.
  mutating func submit(
    into images: inout [String: SourceInventory.Image],
    refusing refuse: (String, String) -> MergeError, staging: @escaping Stager
  ) throws(MergeError) {
    try collect(into: &images, refusing: refuse)
    guard !entries.isEmpty else { return }
    let flight = InFlight(entries: entries, paths: paths)
    let decodedFiles = decodedFiles
    DispatchQueue.global().async(group: flight.group) {
      flight.results = Self.process(flight.entries, decodedFiles: decodedFiles, staging: staging)
    }
    inFlight = flight
    entries.removeAll(keepingCapacity: true)
    paths.removeAll(keepingCapacity: true)
    byteCount = 0
  }

  /// Decodes everything still pending and adds the images.
  mutating func finish(
    into images: inout [String: SourceInventory.Image],
    refusing refuse: (String, String) -> MergeError, staging: @escaping Stager
  ) throws(MergeError) {
    try submit(into: &images, refusing: refuse, staging: staging)
    try collect(into: &images, refusing: refuse)
  }

  /// Hashes and stages the entries that need it, then decodes each distinct file once, all on
  /// every core; results in entry order.
  private static func process(
    _ entries: [Entry], decodedFiles: DecodedFiles, staging: @escaping Stager
  ) -> [Result<SourceInventory.Image, PNGError>] {
    let hashes = ConcurrentSlots.perform(entries.count) { index in
      let entry = entries[index]
      if let known = entry.pngSHA256 { return known }
      let pngSHA256 = SHA256Digest(of: entry.bytes)
      staging(entry.bytes, pngSHA256, entry.path)
      return pngSHA256
    }
    // The first entry of each file not decoded before; the others reuse its result.
    var firstIndex: [SHA256Digest: Int] = [:]
    for (index, pngSHA256) in hashes.enumerated()
    where decodedFiles.byPNGSHA256[pngSHA256] == nil && firstIndex[pngSHA256] == nil {
      firstIndex[pngSHA256] = index
    }
    let toDecode = firstIndex.values.sorted()
    let decoded = ConcurrentSlots.perform(toDecode.count) { position in
      Result { () throws(PNGError) -> Decoded in
        // Decoded only to be hashed: its memory serves the next entry's decode.
        let pixels = try PNGDecoder.Recycler.shared.decode(entries[toDecode[position]].bytes)
        let decoded = (pixels.width, pixels.height, SHA256Digest(of: pixels.pixels))
        PNGDecoder.Recycler.shared.recycle(pixels)
        return decoded
      }
    }
    var thisBatch: [SHA256Digest: Result<Decoded, PNGError>] = [:]
    for (index, result) in zip(toDecode, decoded) {
      thisBatch[hashes[index]] = result
      if case .success(let file) = result,
        decodedFiles.byPNGSHA256.count < decodedFiles.capacity
      {
        decodedFiles.byPNGSHA256[hashes[index]] = file
      }
    }
    return zip(entries, hashes).map { entry, pngSHA256 in
      // Not decoded in this batch, so found in `decodedFiles` when the batch was planned.
      let file = thisBatch[pngSHA256] ?? .success(decodedFiles.byPNGSHA256[pngSHA256]!)
      return file.map { file in
        SourceInventory.Image(
          path: entry.path, pngSHA256: pngSHA256, pixelSHA256: file.pixelSHA256,
          width: file.width, height: file.height, test: nil)
      }
    }
  }

  /// Waits for the batch in flight, if any, dropping its results.
  func waitForInFlight() {
    inFlight?.group.wait()
  }

  private mutating func collect(
    into images: inout [String: SourceInventory.Image],
    refusing refuse: (String, String) -> MergeError
  ) throws(MergeError) {
    guard let flight = inFlight else { return }
    inFlight = nil
    flight.group.wait()
    for (entry, result) in zip(flight.entries, flight.results) {
      switch result {
      case .success(let image): images[entry.path] = image
      case .failure(let error): throw refuse(entry.path, "not a valid PNG: \(error)")
      }
    }
  }
}
