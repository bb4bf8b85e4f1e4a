import Foundation

/// A store on an HTTP server: each object at `<base>/<key>`, read with `GET` and `HEAD`,
/// written with `PUT`.
///
/// Fits a WebDAV server (nginx's `dav_methods PUT DELETE`, Apache's mod_dav), a raw
/// repository of Artifactory or Nexus, or a presigned base: a query on the base (a signed
/// token) is kept on every object's URL and never printed. Objects sit flat under the base,
/// so no collection is ever created.
///
/// Housekeeping uses WebDAV: `list` sends `PROPFIND` with `Depth: 1` to the base and `delete`
/// sends `DELETE`. Servers that answer `PROPFIND` list (nginx with its dav-ext module, which
/// the tests run; Apache's mod_dav; Artifactory's WebDAV access); a server that does not (a
/// Nexus raw repository, plain nginx, a presigned base) makes `list` throw, naming the status.
///
/// Credentials (`StoreCredentials`) go only to the base's host and port, redirects included:
/// a redirect to another host is followed without them. A request that gets no answer, a
/// lost connection, a 5xx or a truncated body is sent again (`NetworkPolicy.tries`, with
/// backoff); 401 and 403 are `StoreError.denied` (`.noCredentials` for a write sent without
/// credentials), 404 is `.missing`, a body over the reader's limit is `.tooLarge` before it
/// is read, and a redirect loop, a time-out or a truncated body are unreachable by name.
public struct HTTPStore: ObjectStore {
  /// The base URL: each object is `<base>/<key>`.
  public let base: URL
  /// The credentials the environment gave this store.
  public let access: StoreCredentials.Access
  private let client: HTTPClient
  /// An object's URL around its key: the base's path with a slash, and its query.
  private let keyPrefix: String
  private let keySuffix: String

  /// - Parameters:
  ///   - base: The URL objects live under.
  ///   - access: Credentials from `StoreCredentials.access(for:kind:environment:)`.
  ///   - policy: Time-out, retries and redirects.
  public init(base: URL, access: StoreCredentials.Access, policy: NetworkPolicy = NetworkPolicy()) {
    self.base = base
    self.access = access
    client = HTTPClient(policy: policy)
    var components = URLComponents(url: base, resolvingAgainstBaseURL: true)
    let query = components?.percentEncodedQuery
    components?.percentEncodedQuery = nil
    components?.fragment = nil
    if let path = components?.percentEncodedPath, !path.hasSuffix("/") {
      components?.percentEncodedPath = path + "/"
    }
    keyPrefix = components?.string ?? base.absoluteString + "/"
    keySuffix = query.map { "?" + $0 } ?? ""
  }

  /// The base, without its query: a presigned base's query is a credential.
  public var name: String { HTTPClient.withoutQuery(base) }

  /// An object's URL: the key appended to the base's path, the base's query kept.
  public func url(of key: ObjectKey) -> URL {
    URL(string: keyPrefix + key.hex + keySuffix) ?? urlWithPath(suffix: key.hex)
  }

  private func urlWithPath(suffix: String) -> URL {
    guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else {
      return base.appendingPathComponent(suffix)
    }
    var path = components.percentEncodedPath
    if !path.hasSuffix("/") { path += "/" }
    components.percentEncodedPath = path + suffix
    return components.url ?? base.appendingPathComponent(suffix)
  }

  public func has(_ key: ObjectKey) throws(StoreError) -> Bool {
    let response = try send(HTTPRequest(method: "HEAD", url: url(of: key)), key: key, limit: 0)
    switch response.status {
    case 200..<300: return true
    case 404, 410: return false
    default: throw failure(response, key: key, writing: false)
    }
  }

  public func get(_ key: ObjectKey, limit: Int) throws(StoreError) -> [UInt8] {
    let response = try send(HTTPRequest(method: "GET", url: url(of: key)), key: key, limit: limit)
    switch response.status {
    case 200..<300: return response.body
    case 404, 410: throw .missing(store: name, key: key)
    default: throw failure(response, key: key, writing: false)
    }
  }

  public func put(_ key: ObjectKey, _ bytes: [UInt8]) throws(StoreError) {
    try checkWritable()
    let request = HTTPRequest(
      method: "PUT", url: url(of: key),
      headers: ["Content-Type": "application/octet-stream"], body: bytes)
    let response = try send(request, key: key, limit: Self.answerLimit)
    guard (200..<300).contains(response.status) else {
      throw failure(response, key: key, writing: true)
    }
  }

  /// Objects up to this size are sent without asking first: the question costs about what the
  /// object does. Larger ones are asked about, so a rerun never sends them again.
  static let sentWithoutAsking = 64 << 10

  /// A small object is sent at once with `If-None-Match: *`: `201 Created` says it was
  /// stored (`StoredObject.upload` then checks it), `412` (a server that honours the
  /// condition) that it was there. Another success (identical bytes replaced, or a server that
  /// does not say Created) is checked here and counted as already there. A larger object, or
  /// credentials withheld, ask first; so does a write the server refuses: a store that holds
  /// the object needs no credentials.
  public func putNew(_ key: ObjectKey, _ bytes: [UInt8]) throws(StoreError) -> Bool {
    var withheld = false
    if case .withheld = access { withheld = true }
    guard bytes.count <= Self.sentWithoutAsking, !withheld else {
      return try putAskingFirst(key, bytes)
    }
    let request = HTTPRequest(
      method: "PUT", url: url(of: key),
      headers: ["Content-Type": "application/octet-stream", "If-None-Match": "*"], body: bytes)
    let response = try send(request, key: key, limit: Self.answerLimit)
    switch response.status {
    case 201: return true
    case 412: return false
    case 200..<300:
      guard try has(key) else { throw .missing(store: name, key: key) }
      return false
    default:
      if try has(key) { return false }
      throw failure(response, key: key, writing: true)
    }
  }

  public func list() throws(StoreError) -> [ObjectKey] {
    let request = HTTPRequest(
      method: "PROPFIND", url: urlWithPath(suffix: ""),
      headers: ["Depth": "1", "Content-Type": "application/xml; charset=utf-8"],
      body: Array(Self.propfindBody.utf8))
    let response = try send(request, key: nil, limit: StoredObject.sizeLimit)
    guard response.status == 207 else {
      if [405, 501, 400].contains(response.status) {
        throw .unreachable(
          store: name, key: nil,
          reason: "it does not list its objects: PROPFIND answered \(response.status); listing "
            + "needs a WebDAV server that answers PROPFIND")
      }
      throw failure(response, key: nil, writing: false)
    }
    return Self.keys(inMultistatus: response.body)
  }

  public func delete(_ key: ObjectKey) throws(StoreError) {
    try checkWritable()
    let response = try send(
      HTTPRequest(method: "DELETE", url: url(of: key)), key: key, limit: Self.answerLimit)
    guard (200..<300).contains(response.status) || response.status == 404 else {
      throw failure(response, key: key, writing: true)
    }
  }

  /// The largest answer to a `PUT` or `DELETE` read (a status page).
  private static let answerLimit = 1 << 20

  private static let propfindBody = """
    <?xml version="1.0" encoding="utf-8"?>
    <propfind xmlns="DAV:"><prop><resourcetype/></prop></propfind>
    """

  /// The keys named by a `PROPFIND` answer's `href` elements (whatever the namespace prefix):
  /// the last component of each, when it is a key.
  static func keys(inMultistatus body: [UInt8]) -> [ObjectKey] {
    let text = String(decoding: body, as: UTF8.self)
    var keys: Set<ObjectKey> = []
    var rest = text[...]
    while let open = rest.range(of: "href>", options: .caseInsensitive) {
      rest = rest[open.upperBound...]
      guard let close = rest.range(of: "<") else { break }
      let href = rest[..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
      rest = rest[close.upperBound...]
      let path = href.split(separator: "?").first.map(String.init) ?? href
      if let last = path.split(separator: "/").last, let key = ObjectKey(last) {
        keys.insert(key)
      }
    }
    return keys.sorted()
  }

  /// Throws unless writing may succeed: credentials withheld from this store fail every write
  /// before anything is sent.
  private func checkWritable() throws(StoreError) {
    if case .withheld(let reason) = access {
      throw .noCredentials(store: name, reason: reason)
    }
  }

  /// The request's headers for one URL: credentials only for their own host and port.
  private func headers(for request: HTTPRequest) -> [String: String] {
    guard case .bound(let credentials) = access, credentials.isBound(to: request.url) else {
      return [:]
    }
    switch credentials.secret {
    case .bearer(let token): return ["Authorization": "Bearer \(token)"]
    case .basic(let user, let password):
      return ["Authorization": "Basic \(Data("\(user):\(password)".utf8).base64EncodedString())"]
    case .aws: return [:]
    }
  }

  private func send(_ request: HTTPRequest, key: ObjectKey?, limit: Int) throws(StoreError)
    -> HTTPResponse
  {
    switch client.send(request, limit: limit, headers: headers(for:)) {
    case .success(let response): return response
    case .failure(let failure):
      throw failure.storeError(store: name, key: key, limit: limit, policy: client.policy)
    }
  }

  /// An answer that is not success, as an error.
  private func failure(_ response: HTTPResponse, key: ObjectKey?, writing: Bool) -> StoreError {
    let status = response.status
    if status == 401 || status == 403 {
      if writing, case .anonymous = access {
        return .noCredentials(
          store: name,
          reason: "it refused a write sent without credentials (HTTP \(status)); set "
            + "\(StoreCredentials.tokenVariable), or \(StoreCredentials.userVariable) and "
            + "\(StoreCredentials.passwordVariable), with \(StoreCredentials.hostVariable)="
            + StoreCredentials.shown(base))
      }
      return .denied(store: name, key: key, reason: "HTTP \(status)")
    }
    if (300..<400).contains(status) {
      return .unreachable(
        store: name, key: key, reason: "HTTP \(status), a redirect without a usable Location")
    }
    let retried = HTTPClient.isRetried(status) && client.policy.tries > 1
    return .unreachable(
      store: name, key: key,
      reason: "HTTP \(status)\(retried ? " (\(client.policy.tries) tries)" : "")")
  }
}
