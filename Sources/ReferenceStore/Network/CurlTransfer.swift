import CCurl
import Foundation

/// One HTTP exchange on a libcurl handle, no redirect followed: what `HTTPClient` sends for
/// each hop.
///
/// Handles are kept between requests, so a worker that sends many reuses one connection. A
/// body is read with a limit: an announced length over it ends the exchange before the body
/// comes, and so does a received count over it; a body shorter than its announced length is
/// refused as truncated. Only a success's body is the object; another answer's is kept up to
/// 64 KB, for its error code.
final class CurlTransfer {
  /// How much of an answer that is not a success is kept (S3's error code is in it).
  static let errorBodyLimit = 64 << 10

  private let limit: Int
  private let expectsBody: Bool
  private let upload: [UInt8]
  private var sent = 0
  private var status = 0
  private var headers: [String: String] = [:]
  private var body: [UInt8] = []
  private var overLimit: Int?
  private let timeout: TimeInterval
  /// The bytes moved either way when something last moved, and when.
  private var moved: Int64 = 0
  private var lastProgress = DispatchTime.now()
  private var timedOut = false

  private init(limit: Int, expectsBody: Bool, upload: [UInt8], timeout: TimeInterval) {
    self.limit = limit
    self.timeout = timeout
    self.expectsBody = expectsBody
    self.upload = upload
  }

  /// Sends one request and reads its answer.
  /// - Parameters:
  ///   - timeout: Seconds without a byte sent or received before the exchange fails.
  static func perform(_ request: HTTPRequest, limit: Int, timeout: TimeInterval) -> Result<
    HTTPResponse, TransportFailure
  > {
    let transfer = CurlTransfer(
      limit: limit, expectsBody: request.method != "HEAD", upload: request.body ?? [],
      timeout: timeout)
    let handle = CurlHandles.shared.take()
    defer { CurlHandles.shared.give(handle) }
    var list: UnsafeMutablePointer<curl_slist>? = nil
    // The bytes as stored: a decoded body would not match its announced length or its key.
    // No `Expect: 100-continue`: a store answers a PUT once.
    for line in request.headers.map({ "\($0.key): \($0.value)" })
      + ["Accept-Encoding: identity", "Expect:"]
    {
      list = curl_slist_append(list, line)
    }
    defer { curl_slist_free_all(list) }
    let code = withExtendedLifetime(transfer) {
      transfer.configure(handle, request, headers: list)
      return curl_easy_perform(handle)
    }
    transfer.status = ri_curl_response_code(handle)
    return transfer.result(code, url: request.url, timeout: timeout)
  }

  private func configure(
    _ handle: UnsafeMutableRawPointer, _ request: HTTPRequest,
    headers: UnsafeMutablePointer<curl_slist>?
  ) {
    _ = ri_curl_set_text(handle, CURLOPT_URL, request.url.absoluteString)
    _ = ri_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers))
    _ = ri_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
    _ = ri_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(timeout * 1000))
    let context = Unmanaged.passUnretained(self).toOpaque()
    // Called at least once a second: ends an exchange that moved no byte for `timeout`,
    // whether its answer does not come or its body stops coming.
    _ = ri_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
    _ = ri_curl_set_progress(handle, curlProgress)
    _ = ri_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context)
    _ = ri_curl_set_callback(handle, CURLOPT_HEADERFUNCTION, curlHeaderLine)
    _ = ri_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
    _ = ri_curl_set_callback(handle, CURLOPT_WRITEFUNCTION, curlBodyBytes)
    _ = ri_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
    switch request.method {
    case "HEAD": _ = ri_curl_set_long(handle, CURLOPT_NOBODY, 1)
    case "GET": _ = ri_curl_set_long(handle, CURLOPT_HTTPGET, 1)
    default: _ = ri_curl_set_text(handle, CURLOPT_CUSTOMREQUEST, request.method)
    }
    if request.body != nil {
      _ = ri_curl_set_long(handle, CURLOPT_UPLOAD, 1)
      _ = ri_curl_set_size(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(upload.count))
      _ = ri_curl_set_callback(handle, CURLOPT_READFUNCTION, curlUploadBytes)
      _ = ri_curl_set_pointer(handle, CURLOPT_READDATA, context)
    }
  }

  /// - Returns: false to end the exchange (no progress for `timeout`).
  fileprivate func progressed(_ total: Int64) -> Bool {
    let now = DispatchTime.now()
    if total != moved {
      moved = total
      lastProgress = now
      return true
    }
    timedOut = Double(now.uptimeNanoseconds - lastProgress.uptimeNanoseconds) / 1e9 > timeout
    return !timedOut
  }

  private var isSuccess: Bool { (200..<300).contains(status) }

  /// The announced length of a body that is expected, or -1.
  private var expectedLength: Int {
    guard expectsBody, let text = headers["content-length"], let length = Int(text) else {
      return -1
    }
    return length
  }

  /// One line of an answer's head, as bytes (Foundation's string trimming cost more than the
  /// request); a status line starts a new head (a `100 Continue`, a 3xx).
  /// - Returns: false to end the exchange (an announced body over the limit).
  fileprivate func headerLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
    let line = Self.trimmed(bytes[...])
    if line.starts(with: "HTTP/".utf8) {
      headers = [:]
      let code = line.drop { $0 != UInt8(ascii: " ") }.dropFirst().prefix(3)
      status = Int(String(decoding: code, as: UTF8.self)) ?? 0
      return true
    }
    guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
      // The blank line that ends the head.
      let expected = expectedLength
      if isSuccess, expected > limit {
        overLimit = expected
        return false
      }
      if isSuccess, expected > 0 { body.reserveCapacity(expected) }
      return true
    }
    let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
    headers[name] = String(decoding: Self.trimmed(line[(colon + 1)...]), as: UTF8.self)
    return true
  }

  /// Bytes without the spaces, tabs and line ends around them.
  private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<
    UnsafeRawBufferPointer
  > {
    let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    guard let first = bytes.firstIndex(where: { !blank($0) }),
      let last = bytes.lastIndex(where: { !blank($0) })
    else { return bytes[bytes.startIndex..<bytes.startIndex] }
    return bytes[first...last]
  }

  /// Bytes of the body. - Returns: false to end the exchange (over the limit).
  fileprivate func bodyBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard isSuccess else {
      body.append(contentsOf: bytes.prefix(max(0, Self.errorBodyLimit - body.count)))
      return true
    }
    guard body.count + bytes.count <= limit else {
      overLimit = body.count + bytes.count
      return false
    }
    body.append(contentsOf: bytes)
    return true
  }

  /// Copies the next bytes of the upload into curl's buffer. - Returns: how many.
  fileprivate func uploadBytes(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    let count = min(buffer.count, upload.count - sent)
    upload.withUnsafeBytes { source in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[sent..<sent + count]))
    }
    sent += count
    return count
  }

  private func result(_ code: CURLcode, url: URL, timeout: TimeInterval) -> Result<
    HTTPResponse, TransportFailure
  > {
    if let overLimit { return .failure(.tooLarge(size: overLimit)) }
    if timedOut || code == CURLE_OPERATION_TIMEDOUT { return .failure(.timedOut(seconds: timeout)) }
    let expected = expectedLength
    if code != CURLE_OK {
      if isSuccess, expected > 0, body.count < expected {
        return .failure(.truncated(received: body.count, expected: expected))
      }
      return .failure(Self.failure(code))
    }
    if isSuccess, expected >= 0, body.count != expected, status != 204 {
      return .failure(.truncated(received: body.count, expected: expected))
    }
    return .success(HTTPResponse(status: status, headers: headers, body: body, url: url))
  }

  /// A curl error in words of this package: curl's own texts may name the URL, query
  /// included.
  private static func failure(_ code: CURLcode) -> TransportFailure {
    switch code {
    case CURLE_COULDNT_CONNECT: return .connection("the connection was refused")
    case CURLE_COULDNT_RESOLVE_HOST: return .connection("its host name is not known")
    case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE:
      return .connection("the connection was lost")
    case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
      CURLE_SSL_CACERT_BADFILE:
      return .connection("the TLS connection failed (curl error \(code.rawValue))")
    default: return .connection("the request failed (curl error \(code.rawValue))")
    }
  }
}

// libcurl's callbacks, each given its transfer as the context.

private let curlHeaderLine: ri_curl_data_callback = { data, size, count, context in
  let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
  let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
  return transfer.headerLine(bytes) ? size * count : 0
}

private let curlBodyBytes: ri_curl_data_callback = { data, size, count, context in
  let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
  let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
  return transfer.bodyBytes(bytes) ? size * count : 0
}

private let curlUploadBytes: ri_curl_data_callback = { data, size, count, context in
  let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
  return transfer.uploadBytes(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
}

private let curlProgress: ri_curl_progress_callback = { context, _, received, _, sent in
  let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
  return transfer.progressed(Int64(received) + Int64(sent)) ? 0 : 1
}

/// The process's idle libcurl handles, each keeping its connections for the next request.
final class CurlHandles: @unchecked Sendable {
  static let shared = CurlHandles()

  private let lock = NSLock()
  private var idle: [UnsafeMutableRawPointer] = []

  private init() {
    // Once, before any handle: libcurl's global set-up.
    curl_global_init(Int(CURL_GLOBAL_DEFAULT))
  }

  /// An idle handle, reset to its defaults (its connections kept), or a new one.
  func take() -> UnsafeMutableRawPointer {
    if let handle = lock.withLock({ idle.popLast() }) {
      curl_easy_reset(handle)
      return handle
    }
    return curl_easy_init()
  }

  func give(_ handle: UnsafeMutableRawPointer) {
    lock.withLock { idle.append(handle) }
  }
}
