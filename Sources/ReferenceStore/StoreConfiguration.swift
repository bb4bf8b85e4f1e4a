import Foundation
import ReferenceArchive

/// The package's choice of store: the committed `ReferenceStore.json` at its root.
///
/// ```json
/// {"version": 1, "store": "folder", "folder": "/mnt/shared/reference-objects"}
/// {"version": 1, "store": "http", "url": "https://dav.example.com/references/"}
/// {"version": 1, "store": "s3", "endpoint": "https://s3.eu-west-1.amazonaws.com",
///  "region": "eu-west-1", "bucket": "team-references", "prefix": "app/"}
/// ```
///
/// The file names a store and nothing secret: credentials come from the environment only
/// (`StoreCredentials`), and only for the host they name.
public struct StoreConfiguration: Equatable, Sendable {
  /// The backend and where it is.
  public enum Backend: Equatable, Sendable {
    /// A folder: absolute, or relative to the package root.
    case folder(URL)
    /// `GET`, `HEAD` and `PUT` on `<base>/<key>`.
    case http(base: URL)
    /// The S3 API, signed with Signature Version 4.
    case s3(S3Location)
  }

  /// Where an S3 bucket is.
  public struct S3Location: Equatable, Sendable {
    /// The service's URL, without the bucket (path-style requests: `<endpoint>/<bucket>/…`).
    public var endpoint: URL
    public var region: String
    public var bucket: String
    /// Prepended to every key, such as `app/`; empty for none.
    public var prefix: String

    public init(endpoint: URL, region: String, bucket: String, prefix: String) {
      self.endpoint = endpoint
      self.region = region
      self.bucket = bucket
      self.prefix = prefix
    }
  }

  /// The file's name at the package root.
  public static let fileName = "ReferenceStore.json"
  /// The only version written and read.
  public static let formatVersion = 1

  public var backend: Backend

  public init(backend: Backend) {
    self.backend = backend
  }

  /// The configuration of the package at `root`, or nil when it has none (references are
  /// PNG files in the repository).
  /// - Throws: `StoreError.badConfiguration` naming the file and what is wrong with it.
  public static func read(packageRoot root: URL) throws(StoreError) -> StoreConfiguration? {
    let file = root.appendingPathComponent(fileName)
    let bytes: [UInt8]
    do {
      guard let read = try FileSystem.readIfPresent(file) else { return nil }
      bytes = read
    } catch {
      throw .badConfiguration(path: file.path, reason: "\(error)")
    }
    return try parse(bytes, path: file.path, packageRoot: root)
  }

  /// Reads a configuration file's bytes.
  /// - Throws: `StoreError.badConfiguration` naming the file and what is wrong with it.
  public static func parse(_ bytes: [UInt8], path: String, packageRoot root: URL)
    throws(StoreError) -> StoreConfiguration
  {
    func bad(_ reason: String) -> StoreError { .badConfiguration(path: path, reason: reason) }
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    else { throw bad("it is not a JSON object") }
    func string(_ key: String) throws(StoreError) -> String {
      guard let value = object[key] as? String, !value.isEmpty else {
        throw bad("\"\(key)\" is missing or not a non-empty string")
      }
      return value
    }
    func url(_ key: String) throws(StoreError) -> URL {
      let text = try string(key)
      guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
        scheme == "http" || scheme == "https", url.host != nil
      else { throw bad("\"\(key)\" is not an http or https URL: \(text)") }
      return url
    }
    guard (object["version"] as? Int) == formatVersion else {
      throw bad("\"version\" is not \(formatVersion)")
    }
    let known: Set<String>
    let backend: Backend
    switch try string("store") {
    case "folder":
      known = ["version", "store", "folder"]
      let folder = try string("folder")
      backend = .folder(
        folder.hasPrefix("/")
          ? URL(fileURLWithPath: folder, isDirectory: true)
          : root.appendingPathComponent(folder, isDirectory: true).standardizedFileURL)
    case "http":
      known = ["version", "store", "url"]
      backend = .http(base: try url("url"))
    case "s3":
      known = ["version", "store", "endpoint", "region", "bucket", "prefix"]
      let prefix = (object["prefix"] as? String) ?? ""
      backend = .s3(
        S3Location(
          endpoint: try url("endpoint"), region: try string("region"),
          bucket: try string("bucket"), prefix: prefix))
    case let other:
      throw bad("\"store\" is \"\(other)\"; use \"folder\", \"http\" or \"s3\"")
    }
    if let unknown = Set(object.keys).subtracting(known).sorted().first {
      throw bad("unknown field \"\(unknown)\"")
    }
    return StoreConfiguration(backend: backend)
  }

  /// The store as people name it, without credentials: a presigned base's query is never
  /// shown.
  public var storeName: String {
    switch backend {
    case .folder(let folder): return folder.path
    case .http(let base): return HTTPClient.withoutQuery(base)
    case .s3(let location):
      return "s3://\(location.bucket)/\(location.prefix) at \(location.endpoint.absoluteString)"
    }
  }
}
