import Foundation
import TestSupport
import XCTest

@testable import ReferenceStore

final class StoreCredentialsTests: XCTestCase {
  private let base = URL(string: "https://dav.example.com/references/")!

  private func access(
    _ environment: [String: String], url: URL? = nil, kind: StoreCredentials.Kind = .http
  )
    -> StoreCredentials.Access
  {
    StoreCredentials.access(for: url ?? base, kind: kind, environment: environment)
  }

  func testAccess_boundOnlyWhenTheHostMatches() {
    let token = [StoreCredentials.tokenVariable: "t0ken"]
    guard
      case .bound(let credentials) = access(
        token.merging(["IMAGE_REFERENCE_STORE_HOST": "dav.example.com"]) { $1 })
    else {
      return XCTFail("not bound")
    }
    XCTAssertEqual(credentials.authority, "dav.example.com:443")
    // The scheme's default port is the same host; another port or host is not.
    for (host, bound) in [
      ("DAV.example.com:443", true), ("dav.example.com:8443", false),
      ("evil.example.com", false), ("dav.example.com.evil.net", false), ("", false),
    ] {
      let result = access(token.merging(["IMAGE_REFERENCE_STORE_HOST": host]) { $1 })
      if case .bound = result { XCTAssertTrue(bound, host) } else { XCTAssertFalse(bound, host) }
    }
    XCTAssertEqual(
      "\(access(token.merging(["IMAGE_REFERENCE_STORE_HOST": "localhost:8080"]) { $1 }, url: URL(string: "http://localhost:8080/x")!))",
      "a bearer token for localhost:8080")
  }

  func testAccess_withheld_namesWhy() {
    func reason(_ environment: [String: String], kind: StoreCredentials.Kind = .http) -> String {
      guard case .withheld(let reason) = access(environment, kind: kind) else {
        return "not withheld"
      }
      return reason
    }
    XCTAssertEqual(
      reason(["IMAGE_REFERENCE_STORE_TOKEN": "x"]),
      "the environment has credentials but no IMAGE_REFERENCE_STORE_HOST naming the host they "
        + "are for; set IMAGE_REFERENCE_STORE_HOST=dav.example.com if they are for this store")
    XCTAssertEqual(
      reason(["IMAGE_REFERENCE_STORE_USER": "u", "IMAGE_REFERENCE_STORE_HOST": "dav.example.com"]),
      "IMAGE_REFERENCE_STORE_USER is set without IMAGE_REFERENCE_STORE_PASSWORD")
    XCTAssertEqual(
      reason(
        ["AWS_ACCESS_KEY_ID": "k", "IMAGE_REFERENCE_STORE_HOST": "dav.example.com"], kind: .s3),
      "AWS_ACCESS_KEY_ID is set without AWS_SECRET_ACCESS_KEY")
    XCTAssertEqual(
      reason(["IMAGE_REFERENCE_STORE_TOKEN": "x", "IMAGE_REFERENCE_STORE_HOST": "other.org:8080"]),
      "the credentials in the environment are for other.org:8080 (IMAGE_REFERENCE_STORE_HOST) "
        + "while ReferenceStore.json names dav.example.com; they are not sent to another host")
    guard case .anonymous = access([:]) else { return XCTFail("no credentials is anonymous") }
    guard case .anonymous = access(["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"]) else {
      return XCTFail("AWS keys are not an HTTP store's")
    }
  }

  func testMakeStore_oneFactoryForEveryBackend() throws {
    let folder = StoreConfiguration(backend: .folder(URL(fileURLWithPath: "/tmp/objects")))
    XCTAssertTrue(try folder.makeStore(environment: [:]) is FolderStore)
    let http = StoreConfiguration(backend: .http(base: base))
    XCTAssertTrue(try http.makeStore(environment: [:]) is HTTPStore)
    let s3 = StoreConfiguration(
      backend: .s3(
        .init(
          endpoint: URL(string: "https://s3.eu-west-1.amazonaws.com")!, region: "eu-west-1",
          bucket: "b", prefix: "p/")))
    XCTAssertTrue(try s3.makeStore(environment: [:]) is S3Store)
    let withPassword = StoreConfiguration(
      backend: .http(base: URL(string: "https://user:hunter2@dav.example.com/")!))
    XCTAssertThrowsError(try withPassword.makeStore(environment: [:])) { error in
      XCTAssertTrue("\(error)".contains("\"url\" carries a user or password"), "\(error)")
      XCTAssertFalse("\(error)".contains("hunter2"), "\(error)")
    }
  }

  /// Every error a store can throw with credentials in the environment, bound or not, and
  /// every description of the stores and their access: none names a credential's value.
  func testCredentials_neverAppearInAnyErrorOrDescription() throws {
    let server = try LoopbackServer.faults(self)
    let secrets = [
      "IMAGE_REFERENCE_STORE_TOKEN": "tok-\(UUID().uuidString)",
      "IMAGE_REFERENCE_STORE_USER": "user-\(UUID().uuidString)",
      "IMAGE_REFERENCE_STORE_PASSWORD": "pw-\(UUID().uuidString)",
      "AWS_ACCESS_KEY_ID": "AKID\(UUID().uuidString.prefix(8))",
      "AWS_SECRET_ACCESS_KEY": "aws-\(UUID().uuidString)",
      "AWS_SESSION_TOKEN": "session-\(UUID().uuidString)",
    ]
    let policy = NetworkPolicy(timeout: 1, tries: 1, backoff: 0, redirects: 2)
    var texts: [String] = []
    func record(_ body: () throws -> Void) {
      do { try body() } catch { texts += ["\(error)", String(reflecting: error)] }
    }
    let key = ObjectKey(of: Array("object".utf8))
    let root = "http://127.0.0.1:\(server.port)"
    let deadPort = try LoopbackServer.freePort()
    for host in ["127.0.0.1:\(server.port)", "elsewhere.example.com", nil] {
      var environment = secrets
      environment["IMAGE_REFERENCE_STORE_HOST"] = host
      for onlyToken in [true, false] {
        if !onlyToken { environment["IMAGE_REFERENCE_STORE_TOKEN"] = nil }
        var stores: [any ObjectStore] = []
        for mode in ["plain", "denied", "unauthorized", "down", "loop", "truncated", "oversize"] {
          stores.append(
            try StoreConfiguration(backend: .http(base: URL(string: "\(root)/\(mode)/")!))
              .makeStore(environment: environment, policy: policy))
        }
        stores.append(
          try StoreConfiguration(
            backend: .http(base: URL(string: "http://127.0.0.1:\(deadPort)/")!)
          ).makeStore(environment: environment, policy: policy))
        for endpoint in [root, "http://127.0.0.1:\(deadPort)"] {
          stores.append(
            try StoreConfiguration(
              backend: .s3(
                .init(
                  endpoint: URL(string: endpoint)!, region: "us-east-1", bucket: "b",
                  prefix: "p/"))
            ).makeStore(environment: environment, policy: policy))
        }
        for store in stores {
          texts += [store.name, "\(store)", String(reflecting: store)]
          var dumped = ""
          dump(store, to: &dumped)
          texts.append(dumped)
          record { _ = try store.has(key) }
          record { _ = try store.get(key, limit: 10) }
          record { _ = try StoredObject.fetch(key, from: store) }
          record { try store.put(key, Array("object".utf8)) }
          record { try store.put(ObjectKey(of: [9]), Array("not it".utf8)) }
          record { _ = try StoredObject.fetch(ObjectKey(of: [9]), from: store) }
          record { _ = try store.list() }
          record { try store.delete(key) }
        }
      }
    }
    XCTAssertGreaterThan(texts.count, 200)
    for text in texts {
      for (name, secret) in secrets {
        XCTAssertFalse(text.contains(secret), "\(name)'s value in: \(text)")
      }
    }
  }
}
