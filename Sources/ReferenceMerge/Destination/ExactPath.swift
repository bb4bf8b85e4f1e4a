/// A path as a table's key, equal to another only byte for byte. `String` equality is
/// canonical equivalence: it takes a folder named with a composed `é` for one named with `e`
/// and a combining accent, which the file system keeps apart. A table of folder handles keyed
/// by `String` opened the first folder for the second and wrote its files there.
struct ExactPath: Hashable {
  let path: String

  init(_ path: String) { self.path = path }

  static func == (a: ExactPath, b: ExactPath) -> Bool { a.path.utf8.elementsEqual(b.path.utf8) }

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
