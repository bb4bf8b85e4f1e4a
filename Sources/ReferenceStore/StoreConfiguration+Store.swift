import Foundation

extension StoreConfiguration {
  /// The store the configuration names, with the credentials the environment gives it: the
  /// one way every caller opens a store.
  ///
  /// A folder is a `FolderStore`; `http` an `HTTPStore`; `s3` an `S3Store`. Credentials are
  /// read from `environment` only, and only for the configured host
  /// (`StoreCredentials.access(for:kind:environment:)`).
  /// - Parameters:
  ///   - environment: The environment, such as `ProcessInfo.processInfo.environment`.
  ///   - policy: Time-out, retries and redirects of a network store.
  /// - Throws: `StoreError.badConfiguration` when a URL carries a user or password: those
  ///   belong in the environment, never in a committed file.
  public func makeStore(
    environment: [String: String], policy: NetworkPolicy = NetworkPolicy()
  ) throws(StoreError) -> any ObjectStore {
    switch backend {
    case .folder(let folder):
      return FolderStore(folder: folder)
    case .http(let base):
      try Self.refuseUserInfo(base, field: "url")
      return HTTPStore(
        base: base,
        access: StoreCredentials.access(for: base, kind: .http, environment: environment),
        policy: policy)
    case .s3(let location):
      try Self.refuseUserInfo(location.endpoint, field: "endpoint")
      return S3Store(
        location: location,
        access: StoreCredentials.access(
          for: location.endpoint, kind: .s3, environment: environment),
        policy: policy)
    }
  }

  private static func refuseUserInfo(_ url: URL, field: String) throws(StoreError) {
    guard url.user == nil, url.password == nil else {
      throw .badConfiguration(
        path: fileName,
        reason: "\"\(field)\" carries a user or password; credentials come from the environment "
          + "only (\(StoreCredentials.userVariable), \(StoreCredentials.passwordVariable), "
          + "\(StoreCredentials.tokenVariable) or the AWS variables, with "
          + "\(StoreCredentials.hostVariable))")
    }
  }
}
