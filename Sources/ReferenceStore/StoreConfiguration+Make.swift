extension StoreConfiguration {
  /// Opens the configured store.
  public func makeStore(environment: [String: String]) throws(StoreError) -> any ObjectStore {
    switch backend {
    case .folder(let folder): return FolderStore(folder: folder)
    case .http, .s3:
      throw .badConfiguration(path: Self.fileName, reason: "this backend is not built yet")
    }
  }
}
