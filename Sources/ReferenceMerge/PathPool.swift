import Foundation
import ReferenceImageCore

/// The paths of one source's images, kept together: each folder once, each name's bytes one
/// after another in one buffer. A path kept as its own string cost a merge of many archives an
/// allocation of about 108 bytes an image; pooled, it cost its name's bytes and 8 more, and
/// costs them and 2 more with its name's end in 16 bits and its folder in a run (the
/// 500,000-image rerun of `Scripts/benchmark-fleet`: peak RSS 79.4–79.8 → 76.4 MB).
/// Beside each path, its image's record (digests and size), most often in the merge's
/// `ImageSpill`.
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

  /// Each folder's bytes with its trailing slash ("" for the package root), one after another.
  private let folderBytes: [UInt8]
  /// Where each folder ends in `folderBytes`.
  private let folderEnds: [UInt32]
  /// Each name's bytes, one after another, in the order of the paths.
  private let nameBytes: [UInt8]
  /// Where each name ends in `nameBytes`.
  private let nameEnds: Ends
  /// The runs of paths in one folder, in the order of the paths: sorted paths come folder by
  /// folder, so a source's images hold a few runs, where a folder for each path cost 4 bytes.
  private let folderRuns: [FolderRun]

  /// Offsets in 16 bits while they fit: 2 bytes a path instead of 4 for most sources.
  private enum Ends: Sendable {
    case narrow([UInt16])
    case wide([UInt32])

    init(_ ends: [UInt32]) {
      if let last = ends.last, last > UInt16.max {
        self = .wide(ends.withUnsafeBufferPointer { Array($0) })
      } else {
        self = .narrow(ends.map { UInt16(truncatingIfNeeded: $0) })
      }
    }

    var count: Int {
      switch self {
      case .narrow(let ends): ends.count
      case .wide(let ends): ends.count
      }
    }

    subscript(index: Int) -> Int {
      switch self {
      case .narrow(let ends): Int(ends[index])
      case .wide(let ends): Int(ends[index])
      }
    }
  }

  /// Paths from `first` on, up to the next run's first, are in folder `folder`.
  private struct FolderRun: Sendable {
    let first: UInt32
    let folder: UInt32
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
    (folderBytes, folderEnds, nameBytes, nameEnds, folderRuns) = ([], [], [], .narrow([]), [])
    isASCII = false
    lone = path
    self.records = records
  }

  /// Pools paths, which keep their order: the pooled path of `paths[i]` is `path(i)`, with
  /// record `i` of `records`.
  init(_ paths: some Sequence<String>, records: Records? = nil) {
    var folderBytes: [UInt8] = []
    var folderEnds: [UInt32] = []
    var nameBytes: [UInt8] = []
    var nameEnds: [UInt32] = []
    var folderRuns: [FolderRun] = []
    // By bytes, not by `Substring` equality: canonically equal folders of other bytes (é
    // composed or not) are other folders on disk.
    var folderIndex: [[UInt8]: UInt32] = [:]
    var last: (folder: Substring, index: UInt32)?
    var isASCII = true
    for path in paths {
      let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path.utf8.index(after: $0) }
      let folder = path[..<(slash ?? path.startIndex)]
      // Sorted paths come folder by folder: the last folder is most often the one.
      let index: UInt32
      if let last, ExactPath.sameBytes(last.folder.utf8, folder.utf8) {
        index = last.index
      } else if let known = folderIndex[Array(folder.utf8)] {
        index = known
      } else {
        index = UInt32(folderEnds.count)
        folderIndex[Array(folder.utf8)] = index
        folderBytes.append(contentsOf: folder.utf8)
        folderEnds.append(UInt32(folderBytes.count))
      }
      last = (folder, index)
      if folderRuns.last?.folder != index {
        folderRuns.append(FolderRun(first: UInt32(nameEnds.count), folder: index))
      }
      nameBytes.append(contentsOf: path[(slash ?? path.startIndex)...].utf8)
      nameEnds.append(UInt32(nameBytes.count))
      isASCII = isASCII && path.utf8.allSatisfy { $0 < 0x80 }
    }
    // Copied to their size: grown by doubling, they kept up to twice the bytes.
    func fitted<Element>(_ array: [Element]) -> [Element] {
      array.withUnsafeBufferPointer { Array($0) }
    }
    self.folderBytes = fitted(folderBytes)
    self.folderEnds = fitted(folderEnds)
    self.nameBytes = fitted(nameBytes)
    self.nameEnds = Ends(nameEnds)
    self.folderRuns = fitted(folderRuns)
    self.isASCII = isASCII
    lone = nil
    self.records = records
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
  var count: Int { lone == nil ? nameEnds.count : 1 }

  /// A path's folder and name bytes (not of a pool of one).
  func withBytes<Result>(_ index: Int, _ body: (PathBytes) -> Result) -> Result {
    let folder = folder(of: index)
    let folderStart = folder == 0 ? 0 : Int(folderEnds[folder - 1])
    let nameStart = index == 0 ? 0 : nameEnds[index - 1]
    return folderBytes.withUnsafeBufferPointer { folders in
      nameBytes.withUnsafeBufferPointer { names in
        body(
          PathBytes(
            folder: UnsafeBufferPointer(rebasing: folders[folderStart..<Int(folderEnds[folder])]),
            name: UnsafeBufferPointer(rebasing: names[nameStart..<nameEnds[index]])))
      }
    }
  }

  /// The folder of a path, by index into `folderEnds`: the last run that starts at or before
  /// it.
  private func folder(of index: Int) -> Int {
    var (low, high) = (0, folderRuns.count - 1)
    while low < high {
      let middle = (low + high + 1) / 2
      if Int(folderRuns[middle].first) <= index { low = middle } else { high = middle - 1 }
    }
    return Int(folderRuns[low].folder)
  }

  /// A path, as a string.
  func path(_ index: Int) -> String {
    if let lone { return lone }
    return withBytes(index) { bytes in
      String(unsafeUninitializedCapacity: bytes.count) { buffer in
        _ = UnsafeMutableBufferPointer(rebasing: buffer[..<bytes.folder.count])
          .initialize(from: bytes.folder)
        _ = UnsafeMutableBufferPointer(rebasing: buffer[bytes.folder.count...])
          .initialize(from: bytes.name)
        return bytes.count
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
        path.order(to: PathBytes(folder: sought, name: UnsafeBufferPointer(start: nil, count: 0)))
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

/// A path's bytes in two parts, its folder's and its name's, read in place.
struct PathBytes {
  let folder: UnsafeBufferPointer<UInt8>
  let name: UnsafeBufferPointer<UInt8>

  var count: Int { folder.count + name.count }

  /// The order of the two paths' bytes: negative, zero or positive.
  func order(to other: PathBytes) -> Int {
    var (a, b) = ((folder, name), (other.folder, other.name))
    // Compares the longest runs both have in one part, then moves on.
    while true {
      let common = min(a.0.count, b.0.count)
      if common > 0 {
        let difference = memcmp(a.0.baseAddress!, b.0.baseAddress!, common)
        if difference != 0 { return Int(difference) }
      }
      a.0 = UnsafeBufferPointer(rebasing: a.0[common...])
      b.0 = UnsafeBufferPointer(rebasing: b.0[common...])
      if a.0.isEmpty {
        guard !a.1.isEmpty else { break }
        (a.0, a.1) = (a.1, UnsafeBufferPointer(start: nil, count: 0))
      }
      if b.0.isEmpty {
        guard !b.1.isEmpty else { break }
        (b.0, b.1) = (b.1, UnsafeBufferPointer(start: nil, count: 0))
      }
    }
    return (a.0.count + a.1.count) - (b.0.count + b.1.count)
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
