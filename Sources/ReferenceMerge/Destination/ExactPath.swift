import Foundation

/// A path as a table's key, equal to another only byte for byte. `String` equality is
/// canonical equivalence: it takes a folder named with a composed `é` for one named with `e`
/// and a combining accent, which the file system keeps apart. A table of folder handles keyed
/// by `String` opened the first folder for the second and wrote its files there.
struct ExactPath: Hashable {
  let path: String

  init(_ path: String) { self.path = path }

  static func == (a: ExactPath, b: ExactPath) -> Bool { sameBytes(a.path.utf8, b.path.utf8) }

  /// Whether two paths, or parts of paths, are the same bytes: by `memcmp` where both are
  /// contiguous, as a native string's are: an up-to-date rerun compares every path of the
  /// destination here and in a pool's folders, where an element-by-element comparison of the
  /// views shows in a profile.
  static func sameBytes(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    let compared = a.withContiguousStorageIfAvailable { a in
      b.withContiguousStorageIfAvailable { b in
        a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
      }
    }
    return (compared ?? nil) ?? a.elementsEqual(b)
  }

  /// Path order for exact paths: `String`'s, then bytes between paths it calls equal, so
  /// two such folders are searched in the same order every run.
  static func precedes(_ a: String, _ b: String) -> Bool {
    a < b || (a == b && a.utf8.lexicographicallyPrecedes(b.utf8))
  }

  func hash(into hasher: inout Hasher) {
    var path = path  // `withUTF8` may make a bridged string contiguous: a copy's, not ours
    path.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }
}
