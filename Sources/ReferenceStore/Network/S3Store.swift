import Foundation

/// A store in an S3 bucket, through the S3 API signed with Signature Version 4 (`SigV4Signer`):
/// AWS S3, and the services that speak its API (Google Cloud Storage's XML API, Cloudflare R2,
/// MinIO, Ceph RGW).
///
/// Requests are path-style, `<endpoint>/<bucket>/<prefix><key>`: `HeadObject` (has),
/// `GetObject`, `PutObject` (with the payload's SHA-256 in `x-amz-content-sha256`),
/// `ListObjectsV2` (every page, by continuation token) and `DeleteObject`. With
/// `AWS_SESSION_TOKEN`, the token is sent and signed as `x-amz-security-token`.
///
/// Credentials come from the environment and only for the endpoint's host
/// (`StoreCredentials`); without them requests go unsigned, which a public bucket answers for
/// reads. Retries, time-outs and the body limit are the HTTP store's (`NetworkPolicy`);
/// redirects are not followed, since a signature is bound to its host.
public struct S3Store: ObjectStore {
  /// The endpoint, region, bucket and key prefix.
  public let location: StoreConfiguration.S3Location
  /// The credentials the environment gave this store.
  public let access: StoreCredentials.Access
  private let client: HTTPClient
  /// Keys asked for per `ListObjectsV2` page (S3 gives at most 1,000).
  let pageSize: Int

  /// - Parameters:
  ///   - location: The endpoint, region, bucket and key prefix.
  ///   - access: Credentials from `StoreCredentials.access(for:kind:environment:)`.
  ///   - policy: Time-out and retries.
  public init(
    location: StoreConfiguration.S3Location, access: StoreCredentials.Access,
    policy: NetworkPolicy = NetworkPolicy()
  ) {
    self.init(location: location, access: access, policy: policy, pageSize: 1000)
  }

  init(
    location: StoreConfiguration.S3Location, access: StoreCredentials.Access,
    policy: NetworkPolicy, pageSize: Int
  ) {
    self.location = location
    self.access = access
    var unfollowed = policy
    unfollowed.redirects = 0
    client = HTTPClient(policy: unfollowed)
    self.pageSize = pageSize
  }

  /// `s3://<bucket>/<prefix> at <endpoint>`.
  public var name: String {
    StoreConfiguration(backend: .s3(location)).storeName
  }

  public func has(_ key: ObjectKey) throws(StoreError) -> Bool {
    let response = try send("HEAD", objectPath(key), key: key, limit: 0)
    switch response.status {
    case 200..<300: return true
    case 404: return false
    default: throw failure(response, key: key, writing: false)
    }
  }

  public func get(_ key: ObjectKey, limit: Int) throws(StoreError) -> [UInt8] {
    let response = try send("GET", objectPath(key), key: key, limit: limit)
    switch response.status {
    case 200..<300: return response.body
    case 404: throw .missing(store: name, key: key)
    default: throw failure(response, key: key, writing: false)
    }
  }

  public func put(_ key: ObjectKey, _ bytes: [UInt8]) throws(StoreError) {
    try checkWritable()
    let response = try send(
      "PUT", objectPath(key), body: bytes, key: key, limit: Self.answerLimit,
      headers: [("content-type", "application/octet-stream")])
    guard (200..<300).contains(response.status) else {
      throw failure(response, key: key, writing: true)
    }
  }

  public func list() throws(StoreError) -> [ObjectKey] {
    var keys: [ObjectKey] = []
    var token: String?
    repeat {
      var query: [(name: String, value: String)] = [
        ("list-type", "2"), ("max-keys", String(pageSize)),
      ]
      if !location.prefix.isEmpty { query.append(("prefix", location.prefix)) }
      if let token { query.append(("continuation-token", token)) }
      let response = try send("GET", bucketPath(), query: query, key: nil, limit: 64 << 20)
      guard response.status == 200 else { throw failure(response, key: nil, writing: false) }
      let page = Self.listPage(response.body)
      keys += page.keys.compactMap { name in
        name.hasPrefix(location.prefix) ? ObjectKey(name.dropFirst(location.prefix.count)) : nil
      }
      guard page.truncated else { break }
      guard let next = page.nextToken, next != token else {
        throw .unreachable(
          store: name, key: nil,
          reason: "ListObjectsV2 said the list goes on but gave no new continuation token")
      }
      token = next
    } while true
    return keys.sorted()
  }

  public func delete(_ key: ObjectKey) throws(StoreError) {
    try checkWritable()
    let response = try send("DELETE", objectPath(key), key: key, limit: Self.answerLimit)
    guard (200..<300).contains(response.status) || response.status == 404 else {
      throw failure(response, key: key, writing: true)
    }
  }

  private static let answerLimit = 1 << 20

  /// The endpoint's own path (for an endpoint behind a path), without a trailing slash.
  private var endpointPath: String {
    var path = location.endpoint.path
    while path.hasSuffix("/") { path.removeLast() }
    return path
  }

  private func bucketPath() -> String { "\(endpointPath)/\(location.bucket)" }

  private func objectPath(_ key: ObjectKey) -> String {
    "\(endpointPath)/\(location.bucket)/\(location.prefix)\(key.hex)"
  }

  private func checkWritable() throws(StoreError) {
    if case .withheld(let reason) = access {
      throw .noCredentials(store: name, reason: reason)
    }
  }

  /// Sends one request, signed when the store has credentials for its host.
  private func send(
    _ method: String, _ path: String, query: [(name: String, value: String)] = [],
    body: [UInt8]? = nil, key: ObjectKey?, limit: Int,
    headers extra: [(name: String, value: String)] = []
  ) throws(StoreError) -> HTTPResponse {
    guard var components = URLComponents(url: location.endpoint, resolvingAgainstBaseURL: true)
    else {
      throw .unreachable(store: name, key: key, reason: "its endpoint is not a URL")
    }
    // The port only when it is not the scheme's own: the Host header the client sends and the
    // one signed must be the same text.
    let scheme = components.scheme?.lowercased() ?? "https"
    if components.port == (scheme == "http" ? 80 : 443) { components.port = nil }
    let payloadHash = SigV4Signer.payloadHash(body ?? [])
    var headers: [String: String] = ["x-amz-content-sha256": payloadHash]
    for (name, value) in extra { headers[name] = value }
    components.percentEncodedPath = SigV4Signer.encodePath(path)
    let encodedQuery = SigV4Signer.canonicalQuery(query)
    components.percentEncodedQuery = encodedQuery.isEmpty ? nil : encodedQuery
    components.fragment = nil
    guard let url = components.url else {
      throw .unreachable(store: name, key: key, reason: "its request URL could not be made")
    }
    let host = components.port.map { "\(components.host ?? ""):\($0)" } ?? (components.host ?? "")
    let request = HTTPRequest(method: method, url: url, headers: headers, body: body)
    let signed: (HTTPRequest) -> [String: String] = { request in
      guard case .bound(let credentials) = access, credentials.isBound(to: request.url),
        case .aws(let keys) = credentials.secret
      else { return [:] }
      let signer = SigV4Signer(credentials: keys, region: location.region, service: "s3")
      let signature = signer.sign(
        SigV4Signer.Request(
          method: method, path: path, query: query,
          headers: [("host", host)] + headers.map { ($0.key, $0.value) },
          payloadSHA256: payloadHash),
        at: Date())
      return Dictionary(signature.addedHeaders, uniquingKeysWith: { _, last in last })
    }
    switch client.send(request, limit: limit, followRedirects: false, headers: signed) {
    case .success(let response): return response
    case .failure(let failure):
      throw failure.storeError(store: name, key: key, limit: limit, policy: client.policy)
    }
  }

  private func failure(_ response: HTTPResponse, key: ObjectKey?, writing: Bool) -> StoreError {
    let status = response.status
    let code = Self.elements("Code", in: response.body).first
    let said = "HTTP \(status)\(code.map { " \($0)" } ?? "")"
    if status == 401 || status == 403 {
      if writing, case .anonymous = access {
        return .noCredentials(
          store: name,
          reason: "it refused an unsigned write (\(said)); set "
            + "\(StoreCredentials.accessKeyVariable) and \(StoreCredentials.secretKeyVariable), "
            + "with \(StoreCredentials.hostVariable)=\(StoreCredentials.shown(location.endpoint))")
      }
      return .denied(store: name, key: key, reason: said)
    }
    if (300..<400).contains(status) {
      return .unreachable(
        store: name, key: key,
        reason: "\(said): the bucket is elsewhere (another region or endpoint); redirects are "
          + "not followed, since a signature names its host")
    }
    let retried = HTTPClient.isRetried(status) && client.policy.tries > 1
    return .unreachable(
      store: name, key: key, reason: "\(said)\(retried ? " (\(client.policy.tries) tries)" : "")")
  }

  /// One `ListObjectsV2` page: the keys, whether more follow, and the token for them.
  static func listPage(_ body: [UInt8]) -> (keys: [String], truncated: Bool, nextToken: String?) {
    (
      elements("Key", in: body), elements("IsTruncated", in: body).first == "true",
      elements("NextContinuationToken", in: body).first
    )
  }

  /// The text of every `<name>…</name>` element, unescaped. S3's answers are flat enough for
  /// this: `Key` appears only in `Contents`, the other names once.
  static func elements(_ name: String, in body: [UInt8]) -> [String] {
    let text = String(decoding: body, as: UTF8.self)
    var values: [String] = []
    var rest = text[...]
    while let open = rest.range(of: "<\(name)>") {
      rest = rest[open.upperBound...]
      guard let close = rest.range(of: "</\(name)>") else { break }
      values.append(unescape(String(rest[..<close.lowerBound])))
      rest = rest[close.upperBound...]
    }
    return values
  }

  private static func unescape(_ text: String) -> String {
    guard text.contains("&") else { return text }
    return text.replacingOccurrences(of: "&lt;", with: "<")
      .replacingOccurrences(of: "&gt;", with: ">")
      .replacingOccurrences(of: "&quot;", with: "\"")
      .replacingOccurrences(of: "&apos;", with: "'")
      .replacingOccurrences(of: "&#39;", with: "'")
      .replacingOccurrences(of: "&amp;", with: "&")
  }
}
