/// The entry points the fuzz target drives: the typed object parser and zstd on raw bytes.
package enum ImportFuzzing {
  /// Parses typed object text; an error is a refusal, never a crash.
  package static func parse(_ bytes: [UInt8], maximumNesting: Int) -> Bool {
    (try? TypedObjectParser.parse(bytes, maximumNesting: maximumNesting)) != nil
  }

  /// Decompresses a zstd frame within `limit`, or returns nil when it is refused.
  package static func decompress(_ bytes: [UInt8], limit: Int) -> [UInt8]? {
    guard Zstd.isFrame(bytes) else { return nil }
    let whole = try? Zstd.decompress(bytes, limit: limit)
    if let whole, let prefix = try? Zstd.prefix(bytes, count: 12) {
      precondition(whole.starts(with: prefix), "a prefix that is not the output's start")
    }
    if let whole { precondition(whole.count <= limit, "output over the limit") }
    return whole
  }
}
