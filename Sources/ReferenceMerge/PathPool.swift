/// The paths of one source's images, kept together: each folder once, each name's bytes one
/// after another in one buffer. A path kept as its own string cost a merge of many archives an
/// allocation of about 108 bytes an image; pooled, it costs its name's bytes and 8 more.
final class PathPool: Sendable {
  /// Each folder's bytes with its trailing slash ("" for the package root), one after another.
  private let folderBytes: [UInt8]
  /// Where each folder ends in `folderBytes`.
  private let folderEnds: [UInt32]
  /// Each name's bytes, one after another, in the order of the paths.
  private let nameBytes: [UInt8]
  /// Where each name ends in `nameBytes`.
  private let nameEnds: [UInt32]
  /// Each path's folder, by index into `folderEnds`.
  private let folders: [UInt32]
  /// Whether every byte is ASCII, where byte order is the order of strings, and equal bytes
  /// the equality of strings.
  let isASCII: Bool
  /// The path of a pool of one, kept as it is: no bytes to compare, the string is the answer.
  private let lone: String?

  /// A pool of one path.
  init(lone path: String) {
    (folderBytes, folderEnds, nameBytes, nameEnds, folders) = ([], [], [], [], [])
    isASCII = false
    lone = path
  }

  /// Pools paths, which keep their order: the pooled path of `paths[i]` is `path(i)`.
  init(_ paths: some Sequence<String>) {
    var folderBytes: [UInt8] = []
    var folderEnds: [UInt32] = []
    var nameBytes: [UInt8] = []
    var nameEnds: [UInt32] = []
    var folders: [UInt32] = []
    var folderIndex: [Substring: UInt32] = [:]
    var isASCII = true
    for path in paths {
      let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path.utf8.index(after: $0) }
      let folder = path[..<(slash ?? path.startIndex)]
      if let index = folderIndex[folder] {
        folders.append(index)
      } else {
        let index = UInt32(folderEnds.count)
        folderIndex[folder] = index
        folderBytes.append(contentsOf: folder.utf8)
        folderEnds.append(UInt32(folderBytes.count))
        folders.append(index)
      }
      nameBytes.append(contentsOf: path[(slash ?? path.startIndex)...].utf8)
      nameEnds.append(UInt32(nameBytes.count))
      isASCII = isASCII && path.utf8.allSatisfy { $0 < 0x80 }
    }
    // Sized to what they hold: grown by doubling, they kept up to twice the bytes.
    self.folderBytes = Array(folderBytes)
    self.folderEnds = Array(folderEnds)
    self.nameBytes = Array(nameBytes)
    self.nameEnds = Array(nameEnds)
    self.folders = Array(folders)
    self.isASCII = isASCII
    lone = nil
  }

  /// How many paths the pool holds.
  var count: Int { lone == nil ? nameEnds.count : 1 }

  /// A path's folder and name bytes (not of a pool of one).
  func withBytes<Result>(
    _ index: Int, _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Result
  ) -> Result {
    let folder = Int(folders[index])
    let folderStart = folder == 0 ? 0 : Int(folderEnds[folder - 1])
    let nameStart = index == 0 ? 0 : Int(nameEnds[index - 1])
    return body(
      folderBytes[folderStart..<Int(folderEnds[folder])],
      nameBytes[nameStart..<Int(nameEnds[index])])
  }

  /// A path, as a string.
  func path(_ index: Int) -> String {
    if let lone { return lone }
    return withBytes(index) { folder, name in
      var bytes = folder
      bytes.append(contentsOf: name)
      return String(decoding: bytes, as: UTF8.self)
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

  /// The path at `index` in `pool`.
  init(_ pool: PathPool, _ index: Int) {
    self.pool = pool
    self.index = UInt32(index)
  }

  /// The path.
  var string: String { pool.path(Int(index)) }

  /// Both paths' folder and name bytes, when both are pooled in ASCII pools.
  private static func asciiBytes<Result>(
    _ a: PooledPath, _ b: PooledPath,
    _ body: (ArraySlice<UInt8>, ArraySlice<UInt8>, ArraySlice<UInt8>, ArraySlice<UInt8>) ->
      Result
  ) -> Result? {
    guard a.pool.isASCII, b.pool.isASCII else { return nil }
    return a.pool.withBytes(Int(a.index)) { aFolder, aName in
      b.pool.withBytes(Int(b.index)) { bFolder, bName in body(aFolder, aName, bFolder, bName) }
    }
  }

  static func == (a: PooledPath, b: PooledPath) -> Bool {
    asciiBytes(a, b) { aFolder, aName, bFolder, bName in
      aFolder.count + aName.count == bFolder.count + bName.count
        && compare(aFolder, aName, bFolder, bName) == 0
    } ?? (a.string == b.string)
  }

  static func < (a: PooledPath, b: PooledPath) -> Bool {
    asciiBytes(a, b) { compare($0, $1, $2, $3) < 0 } ?? (a.string < b.string)
  }

  func hash(into hasher: inout Hasher) { hasher.combine(string) }

  /// The order of two paths given as folder and name bytes: negative, zero or positive.
  private static func compare(
    _ aFolder: ArraySlice<UInt8>, _ aName: ArraySlice<UInt8>,
    _ bFolder: ArraySlice<UInt8>, _ bName: ArraySlice<UInt8>
  ) -> Int {
    let aCount = aFolder.count + aName.count
    let bCount = bFolder.count + bName.count
    func byte(_ folder: ArraySlice<UInt8>, _ name: ArraySlice<UInt8>, _ offset: Int) -> UInt8 {
      offset < folder.count
        ? folder[folder.startIndex + offset] : name[name.startIndex + offset - folder.count]
    }
    // Folders are often one and the same: skip their common part at once.
    var offset = 0
    if aFolder.elementsEqual(bFolder) { offset = aFolder.count }
    while offset < min(aCount, bCount) {
      let (x, y) = (byte(aFolder, aName, offset), byte(bFolder, bName, offset))
      if x != y { return Int(x) - Int(y) }
      offset += 1
    }
    return aCount - bCount
  }
}
