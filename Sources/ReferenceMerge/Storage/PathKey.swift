/// A path's 64-bit key: its FNV-1a hash, the same in every run.
///
/// Rule: a table keyed by it costs a word an image instead of a path's string; two paths may
/// share a key, so whoever uses one checks what the key found by other means.
enum PathKey {
  /// The key of a path.
  static func of(_ path: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    return hash
  }
}
