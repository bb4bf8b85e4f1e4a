import Foundation

/// A path as a table's key, equal to another only byte for byte. `String` equality is
/// canonical equivalence: it takes a folder named with a composed `é` for one named with `e`
/// and a combining accent, which the file system keeps apart. A table of folder handles keyed
/// by `String` opened the first folder for the second and wrote its files there.
struct ExactPath: Hashable {
  let path: String

  init(_ path: String) { self.path = path }

  /// By `memcmp` of the bytes: comparing the two `utf8` views went a byte at a time, 1.8% of an
  /// up-to-date rerun of 50,000 images (`perf record`).
  static func == (a: ExactPath, b: ExactPath) -> Bool {
    guard a.path.utf8.count == b.path.utf8.count else { return false }
    var (a, b) = (a.path, b.path)  // `withUTF8` may make a bridged string contiguous
    return a.withUTF8 { a in
      b.withUTF8 { b in a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
    }
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
