import Foundation
import ReferenceImageCore

/// The paths of one source's images, kept together, in the order given (sorted by path).
///
/// Rule: what a run of paths in one folder shares (the folder, and what all their names start
/// with) is kept once, what all the pool's paths end with (most often `.png`) once, and the
/// rest of each path's bytes one after another in one buffer.
///
/// Cost: a path costs the bytes its name does not share with its run's start and the pool's
/// end, plus 1 or 2 bytes (where its rest ends, in 8 or 16 bits while they fit). Reading a
/// path back as a `String` finds its run by binary search and allocates; comparing two pooled
/// paths of ASCII pools compares bytes in place (`PooledPath`), which is what sorting and
/// searching use. Beside each path, its image's record (digests and size), most often in the
/// merge's `ImageSpill`.
final class PathPool: Sendable {
  /// Where a pool's image records are, one a path.
  enum Records: Sendable {
    /// In memory.
    case held([ImageSpill.Record])
    /// In a spill file, from a record on.
    case spilled(ImageSpill, first: Int)

    /// The records, spilled when there is a file to take them, else held.
    static func spilled(_ records: [ImageSpill.Record], to spill: ImageSpill?) -> Records {
      guard let spill, let first = spill.append(records) else { return .held(records) }
      return .spilled(spill, first: first)
    }
  }

  /// The paths' bytes in one buffer (an array each would cost a pool about 56 bytes, and a fleet
  /// has thousands of pools): each run's prefix (its folder with the trailing slash, "" for the
  /// package root, and what its names share), one after another, runs of the same prefix sharing
  /// one; from `restStart`, the rest of each path's bytes, in the order of the paths; from
  /// `suffixStart`, what every path ends with beyond its run's prefix (most often `.png`), kept
  /// once.
  private let bytes: [UInt8]
  private let restStart: Int
  private let suffixStart: Int
  /// Where each rest ends, from `restStart`.
  private let restEnds: Ends
  /// The runs of paths in one folder, in the order of the paths: sorted paths come folder by
  /// folder, so a source's images hold a few runs, where a folder for each path cost 4 bytes.
  private let prefixRuns: [PrefixRun]

  /// Offsets in 16 bits while they fit: 2 bytes a path instead of 4 for most sources; in 8
  /// while they fit, as a test's images' rests do (`0.png` to `99.png`, less the pool's
  /// suffix, is 190 bytes).
  private enum Ends: Sendable {
    case tiny([UInt8])
    case narrow([UInt16])
    case wide([UInt32])

    init(_ ends: [UInt32]) {
      switch ends.last ?? 0 {
      case ...UInt32(UInt8.max): self = .tiny(ends.map { UInt8(truncatingIfNeeded: $0) })
      case ...UInt32(UInt16.max): self = .narrow(ends.map { UInt16(truncatingIfNeeded: $0) })
      default: self = .wide(ends.withUnsafeBufferPointer { Array($0) })
      }
    }

    var count: Int {
      switch self {
      case .tiny(let ends): ends.count
      case .narrow(let ends): ends.count
      case .wide(let ends): ends.count
      }
    }

    subscript(index: Int) -> Int {
      switch self {
      case .tiny(let ends): Int(ends[index])
      case .narrow(let ends): Int(ends[index])
      case .wide(let ends): Int(ends[index])
      }
    }
  }

  /// Paths from `first` on, up to the next run's first, start with the prefix at
  /// `prefixStart..<prefixEnd` in `bytes`.
  private struct PrefixRun: Sendable {
    let first: UInt32
    let prefixStart: UInt32
    let prefixEnd: UInt32
  }
  /// Whether every byte is ASCII, where byte order is the order of strings, and equal bytes
  /// the equality of strings.
  let isASCII: Bool
  /// The path of a pool of one, kept as it is: no bytes to compare, the string is the answer.
  private let lone: String?
  /// The images' records, in the order of the paths; nil for a pool of paths alone.
  private let records: Records?

  /// A pool of one path.
  init(lone path: String, records: Records? = nil) {
    (bytes, restStart, suffixStart, restEnds, prefixRuns) = ([], 0, 0, .tiny([]), [])
    isASCII = false
    lone = path
    self.records = records
  }

  /// Pools paths, which keep their order: the pooled path of `paths[i]` is `path(i)`, with
  /// record `i` of `records`.
  init(_ paths: some Sequence<String>, records: Records? = nil) {
    let paths = Array(paths)
    var bytes: [UInt8] = []
    var restBytes: [UInt8] = []
    var restEnds: [UInt32] = []
    var prefixRuns: [PrefixRun] = []
    // By bytes, not by `Substring` equality: canonically equal folders of other bytes (é
    // composed or not) are other folders on disk.
    var prefixPlaces: [[UInt8]: (start: UInt32, end: UInt32)] = [:]
    var isASCII = true
    let runs = Self.runs(paths)
    let suffixLength = Self.sharedSuffixLength(paths, runs: runs)
    for run in runs {
      let prefix = Array(paths[run.paths.lowerBound].utf8.prefix(run.prefixLength))
      let place: (start: UInt32, end: UInt32)
      if let known = prefixPlaces[prefix] {
        place = known
      } else {
        place = (UInt32(bytes.count), UInt32(bytes.count + prefix.count))
        prefixPlaces[prefix] = place
        bytes.append(contentsOf: prefix)
      }
      prefixRuns.append(
        PrefixRun(
          first: UInt32(run.paths.lowerBound), prefixStart: place.start, prefixEnd: place.end))
      for path in paths[run.paths] {
        restBytes.append(contentsOf: path.utf8.dropFirst(run.prefixLength).dropLast(suffixLength))
        restEnds.append(UInt32(restBytes.count))
        isASCII = isASCII && path.utf8.allSatisfy { $0 < 0x80 }
      }
    }
    restStart = bytes.count
    suffixStart = restStart + restBytes.count
    bytes += restBytes
    bytes += paths.first?.utf8.suffix(suffixLength) ?? []
    // Copied to their size: grown by doubling, they kept up to twice the bytes.
    self.bytes = bytes.withUnsafeBufferPointer { Array($0) }
    self.restEnds = Ends(restEnds)
    self.prefixRuns = prefixRuns.withUnsafeBufferPointer { Array($0) }
    self.isASCII = isASCII
    lone = nil
    self.records = records
  }

  /// The runs of paths one after another in one folder, each with how many bytes its paths
  /// share: the folder, and what all their names start with (a test's images are most often
  /// named after it).
  private static func runs(_ paths: [String]) -> [(paths: Range<Int>, prefixLength: Int)] {
    var runs: [(paths: Range<Int>, prefixLength: Int)] = []
    var start = 0
    while start < paths.count {
      let first = paths[start].utf8
      let folderLength =
        first.lastIndex(of: UInt8(ascii: "/")).map {
          first.distance(from: first.startIndex, to: $0) + 1
        } ?? 0
      var shared = first.count
      var end = start + 1
      while end < paths.count {
        let path = paths[end].utf8
        guard path.count >= folderLength,
          ExactPath.sameBytes(path.prefix(folderLength), first.prefix(folderLength)),
          !path.dropFirst(folderLength).contains(UInt8(ascii: "/"))
        else { break }
        shared =
          folderLength
          + zip(path.dropFirst(folderLength), first.dropFirst(folderLength)).prefix(
            shared - folderLength
          ).prefix { $0 == $1 }.count
        end += 1
      }
      runs.append((start..<end, shared))
      start = end
    }
    return runs
  }

  /// How many bytes every path ends with alike, not counting any of its run's prefix.
  private static func sharedSuffixLength(
    _ paths: [String], runs: [(paths: Range<Int>, prefixLength: Int)]
  ) -> Int {
    guard let first = paths.first?.utf8 else { return 0 }
    var length = first.count
    for run in runs {
      for path in paths[run.paths] {
        let bytes = path.utf8
        length =
          zip(bytes.reversed(), first.reversed()).prefix(
            min(length, bytes.count - run.prefixLength)
          ).prefix { $0 == $1 }.count
      }
    }
    return length
  }

  /// The record of the image at a path.
  func record(_ index: Int) -> ImageSpill.Record {
    switch records {
    case .held(let records): records[index]
    case .spilled(let spill, let first): spill.record(first + index)
    case nil: preconditionFailure("a pool of paths alone holds no image records")
    }
  }

  /// Keeps, beside a path's record, the pixel digest of the reference its image replaces.
  /// - Returns: false when the records are not spilled, or the file did not take it: the
  ///   caller keeps it.
  func keepReplaced(_ pixels: SHA256Digest, at index: Int) -> Bool {
    guard case .spilled(let spill, let first) = records else { return false }
    return spill.keepReplaced(pixels, at: first + index)
  }

  /// The pixel digest `keepReplaced` kept for a path, or nil.
  func replaced(_ index: Int) -> SHA256Digest? {
    guard case .spilled(let spill, let first) = records else { return nil }
    return spill.replaced(at: first + index)
  }

  /// How many paths the pool holds.
  var count: Int { lone == nil ? restEnds.count : 1 }

  /// A path's bytes, its prefix's and the rest (not of a pool of one).
  func withBytes<Result>(_ index: Int, _ body: (PathBytes) -> Result) -> Result {
    let run = run(of: index)
    let rest = restStart + (index == 0 ? 0 : restEnds[index - 1])..<restStart + restEnds[index]
    return bytes.withUnsafeBufferPointer { bytes in
      body(
        PathBytes(
          prefix: UnsafeBufferPointer(
            rebasing: bytes[Int(run.prefixStart)..<Int(run.prefixEnd)]),
          rest: UnsafeBufferPointer(rebasing: bytes[rest]),
          suffix: UnsafeBufferPointer(rebasing: bytes[suffixStart...])))
    }
  }

  /// The run of a path: the last run that starts at or before it.
  private func run(of index: Int) -> PrefixRun {
    prefixRuns[prefixRuns.lowerBound { Int($0.first) <= index } - 1]
  }

  /// A path, as a string.
  func path(_ index: Int) -> String {
    if let lone { return lone }
    return withBytes(index) { bytes in
      String(unsafeUninitializedCapacity: bytes.count) { buffer in
        var written = 0
        func write(_ part: UnsafeBufferPointer<UInt8>) {
          _ = UnsafeMutableBufferPointer(rebasing: buffer[written...]).initialize(from: part)
          written += part.count
        }
        write(bytes.prefix)
        write(bytes.rest)
        write(bytes.suffix)
        return written
      }
    }
  }
}

/// A package-relative path: a place in a `PathPool`. Paths of ASCII pools compare by their
/// bytes, without making a string.
struct PooledPath: Sendable, Hashable, Comparable {
  private let pool: PathPool
  private let index: UInt32

  /// A path in a pool of its own.
  init(_ path: String) { self.init(PathPool(lone: path), 0) }

  /// An image's path in a pool of its own, with the image's record.
  init(_ path: String, record: ImageSpill.Record) {
    self.init(PathPool(lone: path, records: .held([record])), 0)
  }

  /// The path at `index` in `pool`.
  init(_ pool: PathPool, _ index: Int) {
    self.pool = pool
    self.index = UInt32(index)
  }

  /// The path.
  var string: String { pool.path(Int(index)) }

  /// The record of the image at this path.
  var record: ImageSpill.Record { pool.record(Int(index)) }

  /// See `PathPool.keepReplaced`.
  func keepReplaced(_ pixels: SHA256Digest) -> Bool { pool.keepReplaced(pixels, at: Int(index)) }

  /// See `PathPool.replaced`.
  var replaced: SHA256Digest? { pool.replaced(Int(index)) }

  /// This path's order against a sought one: negative, zero or positive, as for strings.
  func order(to sought: SoughtPath) -> Int {
    guard pool.isASCII, let bytes = sought.asciiBytes else { return sought.order(of: string) }
    return pool.withBytes(Int(index)) { path in
      bytes.withUnsafeBufferPointer { sought in
        path.order(to: PathBytes(prefix: sought))
      }
    }
  }

  /// The order of two paths: negative, zero or positive; nil unless both are pooled in ASCII
  /// pools, where it is their bytes'.
  private static func byteOrder(_ a: PooledPath, _ b: PooledPath) -> Int? {
    guard a.pool.isASCII, b.pool.isASCII else { return nil }
    return a.pool.withBytes(Int(a.index)) { aBytes in
      b.pool.withBytes(Int(b.index)) { bBytes in aBytes.order(to: bBytes) }
    }
  }

  /// The order of this path against another: negative, zero or positive, as for strings.
  func order(to other: PooledPath) -> Int {
    if pool === other.pool && index == other.index { return 0 }
    if let order = Self.byteOrder(self, other) { return order }
    let (a, b) = (string, other.string)
    return a < b ? -1 : a == b ? 0 : 1
  }

  static func == (a: PooledPath, b: PooledPath) -> Bool { a.order(to: b) == 0 }

  static func < (a: PooledPath, b: PooledPath) -> Bool { a.order(to: b) < 0 }

  func hash(into hasher: inout Hasher) { hasher.combine(string) }
}

/// A path's bytes in three parts, its run's prefix, the rest and its pool's suffix, read in
/// place.
struct PathBytes {
  let prefix: UnsafeBufferPointer<UInt8>
  let rest: UnsafeBufferPointer<UInt8>
  let suffix: UnsafeBufferPointer<UInt8>

  init(
    prefix: UnsafeBufferPointer<UInt8>, rest: UnsafeBufferPointer<UInt8> = Self.none,
    suffix: UnsafeBufferPointer<UInt8> = Self.none
  ) {
    (self.prefix, self.rest, self.suffix) = (prefix, rest, suffix)
  }

  static var none: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: nil, count: 0) }

  var count: Int { prefix.count + rest.count + suffix.count }

  /// The order of the two paths' bytes: negative, zero or positive.
  func order(to other: PathBytes) -> Int {
    var (a, b) = (Reading(self), Reading(other))
    // Compares the longest runs both have in one part, then moves on.
    while a.moveToBytes() && b.moveToBytes() {
      let common = min(a.part.count, b.part.count)
      let difference = memcmp(a.part.baseAddress!, b.part.baseAddress!, common)
      if difference != 0 { return Int(difference) }
      a.part = UnsafeBufferPointer(rebasing: a.part[common...])
      b.part = UnsafeBufferPointer(rebasing: b.part[common...])
    }
    return a.remaining - b.remaining
  }

  /// A path's bytes read part by part.
  private struct Reading {
    /// The part being read, from where the reading is.
    var part: UnsafeBufferPointer<UInt8>
    var following: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>)

    init(_ bytes: PathBytes) { (part, following) = (bytes.prefix, (bytes.rest, bytes.suffix)) }

    var remaining: Int { part.count + following.0.count + following.1.count }

    /// Moves past empty parts; false when no byte is left.
    mutating func moveToBytes() -> Bool {
      while part.isEmpty {
        guard remaining > 0 else { return false }
        (part, following) = (following.0, (following.1, PathBytes.none))
      }
      return true
    }
  }
}

/// A path sought among pooled ones many times (a binary search): its bytes read once.
struct SoughtPath {
  let string: String
  /// Its bytes, when all are ASCII.
  let asciiBytes: [UInt8]?

  init(_ string: String) {
    self.string = string
    let bytes = Array(string.utf8)
    asciiBytes = bytes.allSatisfy { $0 < 0x80 } ? bytes : nil
  }

  /// The order of a path given as a string against this one: negative, zero or positive.
  func order(of path: String) -> Int { path < string ? -1 : path == string ? 0 : 1 }
}
