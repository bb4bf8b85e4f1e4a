import CLibCrypto
import Foundation
import ReferenceImageCore

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) for requests sent with headers: the canonical
/// request, the string to sign, the signing key and the `Authorization` header.
///
/// Paths are encoded once, as S3 wants them (every byte but the unreserved ones and `/`), and
/// never normalised; the query is sorted by encoded name, then value. Header names are
/// lowercased and sorted, values trimmed with inner runs of spaces made one, and a name given
/// twice has its values joined by commas. HMAC-SHA256 and SHA-256 come from libcrypto
/// (`HMAC`, `EVP_Digest`).
///
/// Checked against AWS's Signature Version 4 test suite and the S3 documentation's examples
/// (`SigV4SignerTests`).
public struct SigV4Signer: Sendable {
  /// An access key, its secret, and the session token of temporary credentials.
  public struct Credentials: Sendable, CustomStringConvertible, CustomReflectable {
    /// The access key's id (`AKIA…`, `ASIA…` for temporary ones).
    public var accessKeyID: String
    /// The secret the signing key is derived from; never sent.
    public var secretAccessKey: String
    /// Sent as `x-amz-security-token` and signed.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
      self.accessKeyID = accessKeyID
      self.secretAccessKey = secretAccessKey
      self.sessionToken = sessionToken
    }

    /// Names no value: not even the access key's id is printed.
    public var description: String { "AWS keys" }
    public var customMirror: Mirror { Mirror(self, children: ["credentials": "AWS keys"]) }
  }

  /// A request to sign: its path not yet encoded, its query as pairs not yet encoded, and its
  /// headers, `host` included.
  public struct Request: Sendable {
    /// `GET`, `PUT`, …
    public var method: String
    /// The path before encoding, such as `/bucket/app/<key>`.
    public var path: String
    /// The query's names and values before encoding, in any order.
    public var query: [(name: String, value: String)]
    /// Every header to sign, `host` included; a name may appear more than once.
    public var headers: [(name: String, value: String)]
    /// The hex SHA-256 of the body (of no bytes for none), or `UNSIGNED-PAYLOAD`.
    public var payloadSHA256: String

    public init(
      method: String, path: String, query: [(name: String, value: String)] = [],
      headers: [(name: String, value: String)], payloadSHA256: String
    ) {
      self.method = method
      self.path = path
      self.query = query
      self.headers = headers
      self.payloadSHA256 = payloadSHA256
    }
  }

  /// A signed request's parts: what was signed, and the headers to send.
  public struct Signature: Sendable {
    /// The canonical request, as AWS's documentation and test suite print it.
    public var canonicalRequest: String
    /// The string to sign: the algorithm, the time, the scope and the canonical request's hash.
    public var stringToSign: String
    /// 64 hex digits.
    public var signature: String
    /// The `Authorization` header's value.
    public var authorization: String
    /// The headers the signer adds and signs (`x-amz-date`, and `x-amz-security-token` with a
    /// session token), then `Authorization`: send all of them.
    public var addedHeaders: [(name: String, value: String)]
    /// The encoded path, as the request's URL must carry it.
    public var encodedPath: String
    /// The encoded, sorted query, as the request's URL must carry it.
    public var encodedQuery: String
  }

  /// The keys.
  public var credentials: Credentials
  /// The region, such as `us-east-1` (`auto` for Cloudflare R2).
  public var region: String
  /// The service, `s3` for the S3 API.
  public var service: String

  /// A signer for one region and service.
  public init(credentials: Credentials, region: String, service: String) {
    self.credentials = credentials
    self.region = region
    self.service = service
  }

  /// Signs a request at a time.
  /// - Parameters:
  ///   - request: The request, with `host` among its headers.
  ///   - date: The signing time (`x-amz-date`); a request is valid for 15 minutes around it.
  /// - Returns: The canonical request, the string to sign, the signature and the headers.
  public func sign(_ request: Request, at date: Date) -> Signature {
    let (stamp, day) = Self.timestamps(date)
    var headers = request.headers
    headers.append(("x-amz-date", stamp))
    if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
    var byName: [String: [String]] = [:]
    for (name, value) in headers {
      byName[name.lowercased(), default: []].append(Self.trimmed(value))
    }
    let names = byName.keys.sorted()
    let canonicalHeaders = names.map { "\($0):\(byName[$0]!.joined(separator: ","))\n" }.joined()
    let signedHeaders = names.joined(separator: ";")
    let encodedPath = Self.encodePath(request.path)
    let encodedQuery = Self.canonicalQuery(request.query)
    let canonicalRequest = [
      request.method, encodedPath, encodedQuery, canonicalHeaders, signedHeaders,
      request.payloadSHA256,
    ].joined(separator: "\n")
    let scope = "\(day)/\(region)/\(service)/aws4_request"
    let stringToSign = [
      "AWS4-HMAC-SHA256", stamp, scope, SHA256.hex(Array(canonicalRequest.utf8)),
    ].joined(separator: "\n")
    var key = Array("AWS4\(credentials.secretAccessKey)".utf8)
    for part in [day, region, service, "aws4_request"] {
      key = Self.hmac(key: key, Array(part.utf8))
    }
    let signature = SHA256.hexString(Self.hmac(key: key, Array(stringToSign.utf8)))
    let authorization =
      "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
      + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
    var added: [(name: String, value: String)] = [("x-amz-date", stamp)]
    if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
    added.append(("Authorization", authorization))
    return Signature(
      canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
      authorization: authorization, addedHeaders: added, encodedPath: encodedPath,
      encodedQuery: encodedQuery)
  }

  /// The SHA-256 of a payload as hex, as `x-amz-content-sha256` carries it.
  public static func payloadHash(_ bytes: [UInt8]) -> String { SHA256.hex(bytes) }

  /// HMAC-SHA256 (libcrypto's `HMAC`).
  static func hmac(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
    _ = initialized
    var output = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let result = key.withUnsafeBytes { key in
      data.withUnsafeBytes { data in
        output.withUnsafeMutableBufferPointer { output in
          HMAC(
            EVP_sha256(), key.baseAddress, Int32(key.count),
            data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count,
            output.baseAddress, &length)
        }
      }
    }
    // HMAC with SHA-256 fails only when allocation fails; there is no sane recovery.
    precondition(result != nil && length == 32, "libcrypto could not compute HMAC-SHA256")
    return output
  }

  private static let initialized: Void = {
    precondition(ri_openssl_init_without_atexit() == 1, "libcrypto failed to initialise")
  }()

  /// `yyyyMMdd'T'HHmmss'Z'` and `yyyyMMdd`, in UTC.
  static func timestamps(_ date: Date) -> (stamp: String, day: String) {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let day = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))"
    return ("\(day)T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z", day)
  }

  /// A header value trimmed, each run of spaces made one.
  private static func trimmed(_ value: String) -> String {
    value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
      .trimmingCharacters(in: .whitespaces)
  }

  /// Every byte but `A-Z a-z 0-9 - . _ ~` as `%XX` (uppercase hex); `/` kept in paths.
  static func encode(_ text: String, keepingSlash: Bool = false) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.append(byte)
      case UInt8(ascii: "/") where keepingSlash:
        out.append(byte)
      default:
        out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  static func encodePath(_ path: String) -> String {
    path.isEmpty ? "/" : encode(path, keepingSlash: true)
  }

  static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
    query.map { (encode($0.name), encode($0.value)) }
      .sorted {
        $0.0 != $1.0
          ? Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8))
          : Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8))
      }
      .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
  }
}
