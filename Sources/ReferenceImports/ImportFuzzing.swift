import Foundation

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

  /// Walks a graph of objects held in memory from `root` to the attachments and reads every
  /// payload; returns the refusal, if any, which must name the bundle and an object.
  package static func walk(
    objects: [String: [UInt8]], root: String, bundle: URL, limits: ImportLimits
  ) -> ImportError? {
    let store = ObjectStore(bundle: bundle, limits: limits, objects: objects)
    var walk = BundleGraphWalk(store: store)
    do {
      for attachment in try walk.attachments(root: root) {
        guard case .object(let id) = attachment.payload else { continue }
        _ = try? store.payloadPrefix(id, count: 12)
        _ = try? store.payload(id)
      }
      return nil
    } catch {
      return error
    }
  }
}
