import Foundation
import ReferenceImageCore
import TestSupport
import XCTest

@testable import ReferenceStore

#if canImport(FoundationNetworking)
  import FoundationNetworking  // the fault server's /stats, read with Data(contentsOf:)
#endif

/// `HTTPStore` against nginx from Debian with its WebDAV module, and against the fault server
/// for what nginx does not do on request (5xx, slowness, loops, short and long bodies).
final class HTTPStoreTests: XCTestCase {
  // Time-outs are tested with their own policy; 5 s keeps a loaded CI machine from failing the
  // others.
  private let fast = NetworkPolicy(timeout: 5, tries: 3, backoff: 0.05, redirects: 5)

  private func object(_ text: String) -> (bytes: [UInt8], key: ObjectKey) {
    let bytes = Array(text.utf8)
    return (bytes, ObjectKey(of: bytes))
  }

  private func environment(_ port: Int, _ extra: [String: String] = [:]) -> [String: String] {
    extra.merging([StoreCredentials.hostVariable: "127.0.0.1:\(port)"]) { old, _ in old }
  }

  func testNginx_putGetHasListDelete_roundTrip() throws {
    let nginx = try LoopbackServer.nginx(self)
    let base = URL(string: "http://127.0.0.1:\(nginx.port)/objects/")!
    let store = HTTPStore(base: base, access: .anonymous, policy: fast)
    let (bytes, key) = object("a reference PNG's bytes")
    let other = object("another object")
    XCTAssertEqual(try store.list(), [])
    XCTAssertFalse(try store.has(key))
    XCTAssertTrue(try StoredObject.upload(bytes, to: store))
    XCTAssertFalse(try StoredObject.upload(bytes, to: store), "a second upload changes nothing")
    // A small object is sent without asking first, then checked: PUT, HEAD. The second upload
    // is one PUT: nginx refuses it by its condition (412), or in some runs writes the same
    // bytes again (204), and then the object is checked with a HEAD before it counts as stored.
    // nginx logs a request after answering it, so the log is read until it holds every one.
    var requests: [String] = []
    for _ in 0..<50 {
      requests = try String(
        contentsOf: nginx.folder.appendingPathComponent("access.log"), encoding: .utf8
      ).split(separator: "\n").compactMap { line in
        line.firstMatch(of: #/"(HEAD|PUT) [^ ]*\/([0-9a-f]{64}) [^"]*" ([0-9]{3})/#).flatMap {
          match in match.output.2 == key.hex ? "\(match.output.1) \(match.output.3)" : nil
        }
      }
      if requests.count >= (requests.dropFirst(3).first == "PUT 412" ? 4 : 5) { break }
      Thread.sleep(forTimeInterval: 0.1)
    }
    XCTAssertEqual(Array(requests.prefix(3)), ["HEAD 404", "PUT 201", "HEAD 200"])
    let secondUpload = Array(requests.dropFirst(3))
    if secondUpload.first == "PUT 412" {
      XCTAssertEqual(secondUpload, ["PUT 412"])
    } else {
      XCTAssertEqual(secondUpload.count, 2, "\(requests)")
      XCTAssertTrue(secondUpload.first?.hasPrefix("PUT 2") ?? false, "\(requests)")
      XCTAssertEqual(secondUpload.last, "HEAD 200", "\(requests)")
    }
    // A large one is asked about first, so a rerun never sends it again.
    let large = object(String(repeating: "large ", count: 20_000))
    XCTAssertTrue(try StoredObject.upload(large.bytes, to: store))
    XCTAssertFalse(try StoredObject.upload(large.bytes, to: store))
    try store.put(other.key, other.bytes)
    XCTAssertTrue(try store.has(key))
    XCTAssertEqual(try StoredObject.fetch(key, from: store), bytes)
    // What nginx holds is the object, byte for byte, at <base>/<key>.
    XCTAssertEqual(
      try Array(
        Data(contentsOf: nginx.folder.appendingPathComponent("root/objects/\(key.hex)"))),
      bytes)
    XCTAssertEqual(try store.list(), [key, other.key, large.key].sorted())
    try store.delete(large.key)
    try store.delete(key)
    try store.delete(key)
    XCTAssertFalse(try store.has(key))
    XCTAssertEqual(try store.list(), [other.key])
    XCTAssertThrowsError(try store.get(key, limit: 100)) { error in
      XCTAssertEqual(error as? StoreError, .missing(store: store.name, key: key))
    }
  }

  func testNginx_aBigObject_roundTripsAndTheLimitRefusesIt() throws {
    let nginx = try LoopbackServer.nginx(self)
    let store = HTTPStore(
      base: URL(string: "http://127.0.0.1:\(nginx.port)/objects")!, access: .anonymous,
      policy: fast)
    var generator = SplitMix64(seed: 56)
    let bytes = (0..<3_000_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    let key = ObjectKey(of: bytes)
    try store.put(key, bytes)
    XCTAssertEqual(try StoredObject.fetch(key, from: store), bytes)
    XCTAssertThrowsError(try store.get(key, limit: 1_000_000)) { error in
      XCTAssertEqual(
        error as? StoreError,
        .tooLarge(store: store.name, key: key, size: 3_000_000, limit: 1_000_000))
    }
  }

  func testNginx_basicCredentials_writeOnlyWhenBoundToItsHost() throws {
    let nginx = try LoopbackServer.nginx(self)
    let base = URL(string: "http://127.0.0.1:\(nginx.port)/private/")!
    let (bytes, key) = object("written with credentials")
    let credentials = [
      StoreCredentials.userVariable: "writer", StoreCredentials.passwordVariable: "the-password",
    ]
    let configuration = StoreConfiguration(backend: .http(base: base))

    let bound = try configuration.makeStore(
      environment: environment(nginx.port, credentials), policy: fast)
    try bound.put(key, bytes)
    XCTAssertEqual(try StoredObject.fetch(key, from: bound), bytes)

    // Reads need none; a write without them is refused by the server, by name.
    let anonymous = try configuration.makeStore(environment: [:], policy: fast)
    XCTAssertEqual(try StoredObject.fetch(key, from: anonymous), bytes)
    let (more, moreKey) = object("another")
    XCTAssertThrowsError(try anonymous.put(moreKey, more)) { error in
      guard case .noCredentials(_, let reason)? = error as? StoreError else {
        return XCTFail("\(error)")
      }
      XCTAssertTrue(reason.contains("HTTP 401"), reason)
    }

    // Credentials for another host are never sent: the write fails before any request.
    let elsewhere = try configuration.makeStore(
      environment: credentials.merging([StoreCredentials.hostVariable: "dav.example.com"]) {
        $1
      }, policy: fast)
    XCTAssertThrowsError(try elsewhere.put(moreKey, more)) { error in
      XCTAssertEqual(
        "\(error)",
        "no credentials to write to \(base.absoluteString): the credentials in the environment "
          + "are for dav.example.com (IMAGE_REFERENCE_STORE_HOST) while ReferenceStore.json "
          + "names 127.0.0.1:\(nginx.port); they are not sent to another host")
    }
    XCTAssertEqual(try StoredObject.fetch(key, from: elsewhere), bytes, "reads still work")
    let access = try String(
      contentsOf: nginx.folder.appendingPathComponent("access.log"), encoding: .utf8)
    XCTAssertEqual(access.components(separatedBy: "PUT ").count - 1, 2, access)
  }

  func testFaults_5xxThenSuccess_isRetried() throws {
    let server = try LoopbackServer.faults(self)
    let plain = HTTPStore(
      base: URL(string: "http://127.0.0.1:\(server.port)/plain/")!, access: .anonymous,
      policy: fast)
    let flaky = HTTPStore(
      base: URL(string: "http://127.0.0.1:\(server.port)/flaky/")!, access: .anonymous,
      policy: fast)
    let (bytes, key) = object("retried")
    try plain.put(key, bytes)
    XCTAssertEqual(try StoredObject.fetch(key, from: flaky), bytes)
    try flaky.put(ObjectKey(of: [1]), [1])
    let counts = try stats(server)["counts"] as? [String: Int]
    XCTAssertEqual(counts?["GET /flaky/\(key.hex)"], 3, "two 503s, then the object")
    XCTAssertEqual(counts?["PUT /flaky/\(ObjectKey(of: [1]).hex)"], 3)

    let down = HTTPStore(
      base: URL(string: "http://127.0.0.1:\(server.port)/down/")!, access: .anonymous,
      policy: fast)
    XCTAssertThrowsError(try down.get(key, limit: 100)) { error in
      XCTAssertEqual(
        error as? StoreError,
        .unreachable(store: down.name, key: key, reason: "HTTP 503 (3 tries)"))
    }
  }

  func testFaults_slowAndStalledStores_failAsTimedOut() throws {
    let server = try LoopbackServer.faults(self)
    let plain = HTTPStore(
      base: URL(string: "http://127.0.0.1:\(server.port)/plain/")!, access: .anonymous,
      policy: fast)
    let (bytes, key) = object(String(repeating: "slow ", count: 1000))
    try plain.put(key, bytes)
    for mode in ["slow", "stall"] {
      let store = HTTPStore(
        base: URL(string: "http://127.0.0.1:\(server.port)/\(mode)/")!, access: .anonymous,
        policy: NetworkPolicy(timeout: 1, tries: 2, backoff: 0.05))
      let started = Date()
      XCTAssertThrowsError(try store.get(key, limit: 1 << 20), mode) { error in
        guard case .unreachable(_, _, let reason)? = error as? StoreError else {
          return XCTFail("\(error)")
        }
        XCTAssertTrue(reason.hasPrefix("timed out: no answer for 1 s"), "\(mode): \(reason)")
      }
      XCTAssertLessThan(Date().timeIntervalSince(started), 8, mode)
    }
  }

  func testFaults_redirects_followedALimitedNumberOfTimes_andALoopIsNamed() throws {
    let server = try LoopbackServer.faults(self)
    let root = "http://127.0.0.1:\(server.port)"
    let plain = HTTPStore(base: URL(string: "\(root)/plain/")!, access: .anonymous, policy: fast)
    let (bytes, key) = object("redirected")
    try plain.put(key, bytes)
    let redirect = HTTPStore(
      base: URL(string: "\(root)/redirect/")!, access: .anonymous, policy: fast)
    XCTAssertEqual(try StoredObject.fetch(key, from: redirect), bytes)

    let loop = HTTPStore(base: URL(string: "\(root)/loop/")!, access: .anonymous, policy: fast)
    XCTAssertThrowsError(try loop.get(key, limit: 100)) { error in
      XCTAssertEqual(
        error as? StoreError,
        .unreachable(
          store: loop.name, key: key,
          reason: "redirect loop: it redirected back to \(root)/loop/\(key.hex)"))
    }
    let hops = HTTPStore(base: URL(string: "\(root)/hops/")!, access: .anonymous, policy: fast)
    XCTAssertThrowsError(try hops.get(key, limit: 100)) { error in
      XCTAssertEqual(
        error as? StoreError, .unreachable(store: hops.name, key: key, reason: "over 5 redirects"))
    }
  }

  func testFaults_truncatedAndOversizeBodies_areRefused() throws {
    let server = try LoopbackServer.faults(self)
    let root = "http://127.0.0.1:\(server.port)"
    let plain = HTTPStore(base: URL(string: "\(root)/plain/")!, access: .anonymous, policy: fast)
    let (bytes, key) = object(String(repeating: "pixels ", count: 200))
    try plain.put(key, bytes)

    let truncated = HTTPStore(
      base: URL(string: "\(root)/truncated/")!, access: .anonymous, policy: fast)
    XCTAssertThrowsError(try truncated.get(key, limit: 1 << 20)) { error in
      XCTAssertEqual(
        error as? StoreError,
        .unreachable(
          store: truncated.name, key: key,
          reason: "the answer was cut short: \(bytes.count) of the \(bytes.count + 100) bytes "
            + "it announced (3 tries)"))
    }
    let oversize = HTTPStore(
      base: URL(string: "\(root)/oversize/")!, access: .anonymous, policy: fast)
    XCTAssertThrowsError(try oversize.get(key, limit: 1 << 20)) { error in
      XCTAssertEqual(
        error as? StoreError,
        .tooLarge(store: oversize.name, key: key, size: 10_000_000, limit: 1 << 20))
    }
    let chunked = HTTPStore(
      base: URL(string: "\(root)/chunked/")!, access: .anonymous, policy: fast)
    XCTAssertThrowsError(try chunked.get(key, limit: 100_000)) { error in
      guard case .tooLarge(_, let named, let size, 100_000)? = error as? StoreError else {
        return XCTFail("\(error)")
      }
      XCTAssertEqual(named, key)
      XCTAssertGreaterThan(size, 100_000)
    }
  }

  func testFaults_403And401_areDenied_andAWrongBodyIsCorrupt() throws {
    let server = try LoopbackServer.faults(self)
    let root = "http://127.0.0.1:\(server.port)"
    let (bytes, key) = object("guarded")
    for (mode, status) in [("denied", 403), ("unauthorized", 401)] {
      let store = HTTPStore(
        base: URL(string: "\(root)/\(mode)/")!, access: .anonymous, policy: fast)
      XCTAssertThrowsError(try store.get(key, limit: 100)) { error in
        XCTAssertEqual(
          error as? StoreError, .denied(store: store.name, key: key, reason: "HTTP \(status)"))
      }
      XCTAssertThrowsError(try store.has(key))
    }
    let plain = HTTPStore(base: URL(string: "\(root)/plain/")!, access: .anonymous, policy: fast)
    try plain.put(key, Array("not the object".utf8))
    XCTAssertThrowsError(try StoredObject.fetch(key, from: plain)) { error in
      guard case .corrupt(_, key, _)? = error as? StoreError else { return XCTFail("\(error)") }
    }
    _ = bytes
  }

  func testFaults_aStoreThatIsDown_isUnreachableByName() throws {
    let port = try LoopbackServer.freePort()
    let store = HTTPStore(
      base: URL(string: "http://127.0.0.1:\(port)/objects/")!, access: .anonymous, policy: fast)
    let key = ObjectKey(of: [7])
    XCTAssertThrowsError(try store.has(key)) { error in
      XCTAssertEqual(
        error as? StoreError,
        .unreachable(
          store: "http://127.0.0.1:\(port)/objects/", key: key,
          reason: "the connection was refused (3 tries)"))
    }
  }

  func testCredentials_goOnlyToTheirHost_evenAcrossARedirect() throws {
    let server = try LoopbackServer.faults(self)
    let root = "http://127.0.0.1:\(server.port)"
    let token = "token-\(UUID().uuidString)"
    let environment = environment(server.port, [StoreCredentials.tokenVariable: token])
    let (bytes, key) = object("bearer")
    let plain = try StoreConfiguration(backend: .http(base: URL(string: "\(root)/plain/")!))
      .makeStore(environment: environment, policy: fast)
    try plain.put(key, bytes)
    let elsewhere = try StoreConfiguration(
      backend: .http(base: URL(string: "\(root)/elsewhere/")!)
    ).makeStore(environment: environment, policy: fast)
    XCTAssertEqual(try StoredObject.fetch(key, from: elsewhere), bytes)
    let seen = try stats(server)["authorization"] as? [String: String]
    XCTAssertEqual(seen?["/plain/\(key.hex)"], "", "the redirect to localhost went without it")
    XCTAssertEqual(seen?["/elsewhere/\(key.hex)"], "Bearer \(token)")
  }

  func testList_ofAServerWithoutPROPFIND_saysSo() throws {
    let server = try LoopbackServer.faults(self)
    let store = HTTPStore(
      base: URL(string: "http://127.0.0.1:\(server.port)/plain/")!, access: .anonymous,
      policy: fast)
    XCTAssertThrowsError(try store.list()) { error in
      XCTAssertTrue("\(error)".contains("PROPFIND answered 501"), "\(error)")
    }
  }

  func testURLs_keepAPresignedBasesQuery_andItsNameHidesIt() {
    let store = HTTPStore(
      base: URL(string: "https://cdn.example.com/refs?sig=SECRET&exp=1")!, access: .anonymous)
    let key = ObjectKey(of: [1])
    XCTAssertEqual(
      store.url(of: key).absoluteString, "https://cdn.example.com/refs/\(key.hex)?sig=SECRET&exp=1")
    XCTAssertEqual(store.name, "https://cdn.example.com/refs")
  }

  func testKeys_inAMultistatusAnswer() {
    let key = ObjectKey(of: [1])
    let body = """
      <?xml version="1.0" encoding="utf-8" ?>
      <D:multistatus xmlns:D="DAV:"><D:response><D:href>/objects/</D:href></D:response>
      <D:response><D:href>/objects/\(key.hex)</D:href></D:response>
      <D:response><D:href>/objects/notes.txt</D:href></D:response></D:multistatus>
      """
    XCTAssertEqual(HTTPStore.keys(inMultistatus: Array(body.utf8)), [key])
  }

  private func stats(_ server: LoopbackServer) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(string: "http://127.0.0.1:\(server.port)/stats")!)
    return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
  }
}
