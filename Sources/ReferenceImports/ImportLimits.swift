import ReferenceArchive

/// Bounds that protect `merge-refs` from hostile or broken result bundles: zstd bombs, deep or
/// cyclic object graphs, absurd counts.
public struct ImportLimits: Sendable, Hashable {
  /// The largest typed object (the text of a summary), as stored and once decompressed.
  public var maximumObjectBytes: Int
  /// The largest attachment payload, as stored and once decompressed.
  public var maximumPayloadBytes: Int
  /// The deepest nesting of brackets in one object's text; real bundles reach about 140.
  public var maximumNesting: Int
  /// The longest chain of references followed from the root; real bundles need 2.
  public var maximumReferenceDepth: Int
  /// The most objects read from one bundle.
  public var maximumObjects: Int
  /// The most attachments one bundle or export may list.
  public var maximumAttachments: Int

  /// Creates limits.
  public init(
    maximumObjectBytes: Int, maximumPayloadBytes: Int, maximumNesting: Int,
    maximumReferenceDepth: Int, maximumObjects: Int, maximumAttachments: Int
  ) {
    self.maximumObjectBytes = maximumObjectBytes
    self.maximumPayloadBytes = maximumPayloadBytes
    self.maximumNesting = maximumNesting
    self.maximumReferenceDepth = maximumReferenceDepth
    self.maximumObjects = maximumObjects
    self.maximumAttachments = maximumAttachments
  }

  /// The limits that go with a merge's archive limits: a payload is bounded like an archive
  /// entry, an object's text at 64 MiB, nesting at 512, references at 16 deep.
  public init(archiveLimits: ArchiveLimits) {
    self.init(
      maximumObjectBytes: 64 << 20, maximumPayloadBytes: archiveLimits.maximumEntryBytes,
      maximumNesting: 512, maximumReferenceDepth: 16, maximumObjects: 1_000_000,
      maximumAttachments: archiveLimits.maximumEntryCount)
  }

  /// The defaults: `init(archiveLimits: .default)`.
  public static let `default` = ImportLimits(archiveLimits: .default)
}
