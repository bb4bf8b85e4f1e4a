/// What `merge-refs --compact` did to the references it landed in the tree.
public struct CompactedReferences: Sendable, Equatable, Codable {
  /// The landed files looked at.
  public var files: Int
  /// The files rewritten smaller.
  public var compacted: Int
  /// Their bytes before and after.
  public var bytesBefore: Int
  public var bytesAfter: Int
}

/// What a merge into a package with a store (`ReferenceStore.json`) sent to it.
public struct StoreUploads: Sendable, Equatable, Codable {
  /// The store as people name it, without credentials.
  public var name: String
  /// Objects uploaded; each distinct PNG at most once per merge.
  public var uploaded: Int

  public init(name: String, uploaded: Int) {
    self.name = name
    self.uploaded = uploaded
  }
}
