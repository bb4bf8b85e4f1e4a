/// Bounds that protect `merge-refs` from hostile or broken archives (zip bombs, absurd entries).
public struct ArchiveLimits: Sendable, Hashable {
  /// The largest single entry, uncompressed.
  public var maximumEntryBytes: Int
  /// The largest sum of all entries of one archive, uncompressed.
  public var maximumTotalBytes: Int
  /// The largest allowed ratio of uncompressed bytes to archive bytes. Stored PNGs are near 1;
  /// a deflated manifest reaches 10–20.
  public var maximumCompressionRatio: Int
  /// The most entries one archive may hold.
  public var maximumEntryCount: Int

  /// Creates limits.
  public init(
    maximumEntryBytes: Int, maximumTotalBytes: Int, maximumCompressionRatio: Int,
    maximumEntryCount: Int
  ) {
    self.maximumEntryBytes = maximumEntryBytes
    self.maximumTotalBytes = maximumTotalBytes
    self.maximumCompressionRatio = maximumCompressionRatio
    self.maximumEntryCount = maximumEntryCount
  }

  /// 256 MiB per entry, 16 GiB per archive, ratio 100, 200,000 entries.
  public static let `default` = ArchiveLimits(
    maximumEntryBytes: 256 << 20, maximumTotalBytes: 16 << 30, maximumCompressionRatio: 100,
    maximumEntryCount: 200_000)
}
