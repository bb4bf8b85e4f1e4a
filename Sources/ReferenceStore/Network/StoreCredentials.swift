import Foundation

/// Credentials for a network store, read from the environment only, and bound to the host
/// they were issued for.
///
/// `IMAGE_REFERENCE_STORE_HOST` (`host` or `host:port`) names that host. A store sends the
/// credentials only to it: when `ReferenceStore.json` names another host (a pull request that
/// points the committed file elsewhere) or the variable is not set, nothing is sent, reads go
/// out without credentials (public and presigned stores allow them), and every write fails
/// with `StoreError.noCredentials` naming both hosts.
///
/// - HTTP: `IMAGE_REFERENCE_STORE_TOKEN` (sent as `Authorization: Bearer`), or
///   `IMAGE_REFERENCE_STORE_USER` and `IMAGE_REFERENCE_STORE_PASSWORD` (Basic).
/// - S3: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and, for temporary credentials,
///   `AWS_SESSION_TOKEN`.
///
/// The values never appear in a description, a dump or an error: only the host and the
/// variables' names do.
public struct StoreCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// The secret itself.
  public enum Secret: Sendable {
    /// `Authorization: Bearer <token>`.
    case bearer(token: String)
    /// `Authorization: Basic <user:password>`.
    case basic(user: String, password: String)
    /// Signature Version 4 keys.
    case aws(SigV4Signer.Credentials)
  }

  /// Which kind of store the credentials are looked up for.
  public enum Kind: Sendable {
    /// `HTTPStore`: a bearer token, or a user and password.
    case http
    /// `S3Store`: AWS keys.
    case s3
  }

  /// What the environment gives one store.
  public enum Access: Sendable, CustomStringConvertible {
    /// No credentials in the environment: requests go out without any.
    case anonymous
    /// Credentials bound to this store's host.
    case bound(StoreCredentials)
    /// Credentials that this store must not receive, and why (another host, no host named,
    /// an incomplete pair): requests go out without any, and writes fail with the reason.
    case withheld(reason: String)

    public var description: String {
      switch self {
      case .anonymous: return "no credentials"
      case .bound(let credentials): return credentials.description
      case .withheld(let reason): return "credentials withheld: \(reason)"
      }
    }
  }

  /// The host the credentials are for.
  public static let hostVariable = "IMAGE_REFERENCE_STORE_HOST"
  /// A bearer token for an HTTP store.
  public static let tokenVariable = "IMAGE_REFERENCE_STORE_TOKEN"
  /// A user name for an HTTP store (Basic authentication).
  public static let userVariable = "IMAGE_REFERENCE_STORE_USER"
  /// The password that goes with `userVariable`.
  public static let passwordVariable = "IMAGE_REFERENCE_STORE_PASSWORD"
  /// The S3 variables, as the AWS tools name them.
  public static let accessKeyVariable = "AWS_ACCESS_KEY_ID"
  /// The secret that goes with `accessKeyVariable`.
  public static let secretKeyVariable = "AWS_SECRET_ACCESS_KEY"
  /// The session token of temporary AWS credentials.
  public static let sessionTokenVariable = "AWS_SESSION_TOKEN"

  /// The secret: never printed.
  public let secret: Secret
  /// The host (and port, always given: the scheme's default when the variable has none) the
  /// credentials are sent to, lowercased.
  public let authority: String

  /// - Parameters:
  ///   - secret: The secret.
  ///   - authority: `host:port`, lowercased, as `authority(of:)` gives it.
  public init(secret: Secret, authority: String) {
    self.secret = secret
    self.authority = authority
  }

  /// What kind of credentials for which host, without any value.
  public var description: String {
    let kind: String
    switch secret {
    case .bearer: kind = "a bearer token"
    case .basic: kind = "a user and password"
    case .aws: kind = "AWS keys"
    }
    return "\(kind) for \(authority)"
  }

  public var debugDescription: String { description }

  public var customMirror: Mirror { Mirror(self, children: ["credentials": description]) }

  /// The credentials the environment gives the store at `url`.
  /// - Parameters:
  ///   - url: The store's URL (an HTTP base, an S3 endpoint); its host and port are compared
  ///     with `IMAGE_REFERENCE_STORE_HOST`.
  ///   - kind: Which variables to read.
  ///   - environment: The environment, such as `ProcessInfo.processInfo.environment`.
  public static func access(for url: URL, kind: Kind, environment: [String: String]) -> Access {
    func value(_ name: String) -> String? {
      environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
    let secret: Secret
    switch kind {
    case .http:
      if let token = value(tokenVariable) {
        secret = .bearer(token: token)
      } else if let user = value(userVariable) {
        guard let password = value(passwordVariable) else {
          return .withheld(reason: "\(userVariable) is set without \(passwordVariable)")
        }
        secret = .basic(user: user, password: password)
      } else if value(passwordVariable) != nil {
        return .withheld(reason: "\(passwordVariable) is set without \(userVariable)")
      } else {
        return .anonymous
      }
    case .s3:
      let key = value(accessKeyVariable)
      let secretKey = value(secretKeyVariable)
      guard key != nil || secretKey != nil else { return .anonymous }
      guard let key, let secretKey else {
        return .withheld(
          reason: "\(key == nil ? secretKeyVariable : accessKeyVariable) is set without "
            + "\(key == nil ? accessKeyVariable : secretKeyVariable)")
      }
      secret = .aws(
        SigV4Signer.Credentials(
          accessKeyID: key, secretAccessKey: secretKey, sessionToken: value(sessionTokenVariable)))
    }
    let configured = authority(of: url)
    guard let named = value(hostVariable) else {
      return .withheld(
        reason: "the environment has credentials but no \(hostVariable) naming the host they "
          + "are for; set \(hostVariable)=\(shown(url)) if they are for this store")
    }
    guard let bound = authority(named, scheme: url.scheme), bound == configured else {
      return .withheld(
        reason: "the credentials in the environment are for \(named) (\(hostVariable)) while "
          + "\(StoreConfiguration.fileName) names \(shown(url)); they are not sent to another "
          + "host")
    }
    return .bound(StoreCredentials(secret: secret, authority: bound))
  }

  /// `host:port` of a URL, lowercased, with the scheme's default port when it names none.
  public static func authority(of url: URL) -> String {
    let host = (url.host ?? "").lowercased()
    let port = url.port ?? defaultPort(url.scheme)
    return "\(host.contains(":") ? "[\(host)]" : host):\(port)"
  }

  /// A URL's host as people write it: `host`, or `host:port` when it names a port.
  static func shown(_ url: URL) -> String {
    let host = url.host ?? ""
    return url.port.map { "\(host):\($0)" } ?? host
  }

  /// `host[:port]` as the variable gives it, in the form `authority(of:)` returns.
  static func authority(_ text: String, scheme: String?) -> String? {
    let text = text.trimmingCharacters(in: .whitespaces).lowercased()
    guard let url = URL(string: "\(scheme ?? "https")://\(text)"), url.host != nil,
      url.path.isEmpty, url.query == nil, url.user == nil
    else { return nil }
    return authority(of: url)
  }

  private static func defaultPort(_ scheme: String?) -> Int {
    scheme?.lowercased() == "http" ? 80 : 443
  }

  /// Whether a request to `url` may carry these credentials: the same host and port.
  func isBound(to url: URL) -> Bool {
    Self.authority(of: url) == authority
  }
}
