import Foundation
import ReferenceImageCore
import TestSupport
import XCTest

@testable import ReferenceStore

/// `S3Store` against moto's S3 server (a protocol double of S3, not AWS: it does not check
/// signatures, which `SigV4SignerTests` does against AWS's vectors), with boto3, AWS's own
/// SDK, writing and reading beside it.
final class S3StoreTests: XCTestCase {
  private let fast = NetworkPolicy(timeout: 5, tries: 3, backoff: 0.05)
  private let keys = [
    StoreCredentials.accessKeyVariable: "AKIDMOTOTESTING",
    StoreCredentials.secretKeyVariable: "moto-secret-\(UUID().uuidString)",
  ]

  private struct Moto {
    var server: LoopbackServer
    var endpoint: String
    var environment: [String: String]
  }

  /// moto with a bucket; checking signatures unless told not to: the store then signs with
  /// the keys of an IAM user that moto checks each request's signature against.
  private func startMoto(bucket: String, checkingSignatures: Bool = true) throws -> Moto {
    // Unchecked: the writer's three IAM calls and the bucket's creation.
    let server = try LoopbackServer.moto(self, unauthenticated: checkingSignatures ? 4 : nil)
    let endpoint = "http://127.0.0.1:\(server.port)"
    var environment = ProcessInfo.processInfo.environment.merging(keys) { $1 }
    environment[StoreCredentials.hostVariable] = "127.0.0.1:\(server.port)"
    environment["AWS_DEFAULT_REGION"] = "us-east-1"
    var moto = Moto(server: server, endpoint: endpoint, environment: environment)
    if checkingSignatures {
      let writer = try boto(moto, "create-writer").split(separator: " ").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines)
      }
      XCTAssertEqual(writer.count, 2)
      moto.environment[StoreCredentials.accessKeyVariable] = writer[0]
      moto.environment[StoreCredentials.secretKeyVariable] = writer[1]
    }
    try boto(moto, "create-bucket", bucket)
    return moto
  }

  @discardableResult
  private func boto(_ moto: Moto, _ arguments: String...) throws -> String {
    let script = LoopbackServer.fixtures.appendingPathComponent("s3_client.py").path
    let run = try runProcess(
      try LoopbackServer.venvPython(), [script, moto.endpoint] + arguments,
      environment: moto.environment, timeout: 120)
    XCTAssertEqual(run.status, 0, run.all)
    return run.output
  }

  private func store(_ moto: Moto, bucket: String, prefix: String, pageSize: Int = 1000)
    -> S3Store
  {
    let location = StoreConfiguration.S3Location(
      endpoint: URL(string: moto.endpoint)!, region: "us-east-1", bucket: bucket, prefix: prefix)
    return S3Store(
      location: location,
      access: StoreCredentials.access(
        for: location.endpoint, kind: .s3, environment: moto.environment),
      policy: fast, pageSize: pageSize)
  }

  private func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
  }

  func testMoto_roundTripsBothWaysWithBoto3_byteIdentical() throws {
    let moto = try startMoto(bucket: "references")
    let store = store(moto, bucket: "references", prefix: "app/")
    let folder = try makeTemporaryFolder(self)

    // The package writes; boto3 reads the same bytes at <prefix><key>.
    let ours = randomBytes(2_000_000, seed: 1)
    let ourKey = ObjectKey(of: ours)
    XCTAssertTrue(try StoredObject.upload(ours, to: store))
    XCTAssertFalse(try StoredObject.upload(ours, to: store), "a second upload changes nothing")
    let read = folder.appendingPathComponent("read")
    try boto(moto, "get", "references", "app/\(ourKey.hex)", read.path)
    XCTAssertEqual(try Array(Data(contentsOf: read)), ours)

    // boto3 writes; the package reads the same bytes.
    let theirs = randomBytes(300_000, seed: 2)
    let theirKey = ObjectKey(of: theirs)
    let written = folder.appendingPathComponent("written")
    try Data(theirs).write(to: written)
    try boto(moto, "put", "references", "app/\(theirKey.hex)", written.path)
    XCTAssertTrue(try store.has(theirKey))
    XCTAssertEqual(try StoredObject.fetch(theirKey, from: store), theirs)

    XCTAssertEqual(try store.list(), [ourKey, theirKey].sorted())
    try store.delete(ourKey)
    try store.delete(ourKey)
    XCTAssertFalse(try store.has(ourKey))
    XCTAssertEqual(try boto(moto, "list", "references", "app/"), "app/\(theirKey.hex)\n")
    XCTAssertThrowsError(try store.get(ourKey, limit: 1 << 20)) { error in
      XCTAssertEqual(error as? StoreError, .missing(store: store.name, key: ourKey))
    }
    XCTAssertThrowsError(try store.get(theirKey, limit: 1000)) { error in
      XCTAssertEqual(
        error as? StoreError,
        .tooLarge(store: store.name, key: theirKey, size: 300_000, limit: 1000))
    }
  }

  func testMoto_list_followsContinuationTokens_andOnlyItsPrefix() throws {
    let moto = try startMoto(bucket: "paged")
    let store = store(moto, bucket: "paged", prefix: "team/a/", pageSize: 2)
    let objects = (0..<5).map { randomBytes(10, seed: UInt64(10 + $0)) }
    for bytes in objects { try store.put(ObjectKey(of: bytes), bytes) }
    let other = self.store(moto, bucket: "paged", prefix: "team/b/")
    try other.put(ObjectKey(of: [1]), [1])
    XCTAssertEqual(try store.list(), objects.map { ObjectKey(of: $0) }.sorted())
    XCTAssertEqual(try other.list(), [ObjectKey(of: [1])])
  }

  func testMoto_withSessionToken_andMakeStore() throws {
    // moto checks no session token it did not issue: signatures unchecked here.
    let moto = try startMoto(bucket: "tokens", checkingSignatures: false)
    var environment = moto.environment
    environment[StoreCredentials.sessionTokenVariable] = "session-\(UUID().uuidString)"
    let configuration = StoreConfiguration(
      backend: .s3(
        .init(
          endpoint: URL(string: moto.endpoint)!, region: "us-east-1", bucket: "tokens",
          prefix: "")))
    let store = try configuration.makeStore(environment: environment, policy: fast)
    XCTAssertTrue(store is S3Store)
    let bytes = Array("with a session token".utf8)
    try store.put(ObjectKey(of: bytes), bytes)
    XCTAssertEqual(try StoredObject.fetch(ObjectKey(of: bytes), from: store), bytes)

    // Keys for another host are never sent, and a write fails before any request.
    environment[StoreCredentials.hostVariable] = "s3.eu-west-1.amazonaws.com"
    let elsewhere = try configuration.makeStore(environment: environment, policy: fast)
    XCTAssertThrowsError(try elsewhere.put(ObjectKey(of: [2]), [2])) { error in
      guard case .noCredentials(_, let reason)? = error as? StoreError else {
        return XCTFail("\(error)")
      }
      XCTAssertTrue(
        reason.contains(
          "are for s3.eu-west-1.amazonaws.com (IMAGE_REFERENCE_STORE_HOST) while "
            + "ReferenceStore.json names 127.0.0.1:\(moto.server.port)"), reason)
    }
  }

  func testMoto_aWrongSecret_isRefusedAsDenied() throws {
    var moto = try startMoto(bucket: "signed")
    let right = store(moto, bucket: "signed", prefix: "")
    try right.put(ObjectKey(of: [3]), [3])
    moto.environment[StoreCredentials.secretKeyVariable] = "not-the-secret"
    let wrong = store(moto, bucket: "signed", prefix: "")
    XCTAssertThrowsError(try wrong.put(ObjectKey(of: [4]), [4])) { error in
      XCTAssertEqual(
        error as? StoreError,
        .denied(
          store: wrong.name, key: ObjectKey(of: [4]), reason: "HTTP 403 SignatureDoesNotMatch"))
    }
    XCTAssertThrowsError(try wrong.list()) { error in
      XCTAssertTrue("\(error)".contains("SignatureDoesNotMatch"), "\(error)")
    }
    XCTAssertEqual(try right.list(), [ObjectKey(of: [3])])
  }

  func testMoto_aMissingBucket_isNamed() throws {
    let moto = try startMoto(bucket: "exists")
    let store = store(moto, bucket: "absent", prefix: "")
    XCTAssertThrowsError(try store.list()) { error in
      XCTAssertTrue("\(error)".contains("HTTP 404 NoSuchBucket"), "\(error)")
    }
  }

  func testListPage_readsKeysAndTheContinuationToken() {
    let body = """
      <?xml version="1.0" encoding="UTF-8"?>
      <ListBucketResult><Name>b</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount>
      <IsTruncated>true</IsTruncated><NextContinuationToken>a+b/c&amp;d=</NextContinuationToken>
      <Contents><Key>p/one</Key><Size>1</Size></Contents>
      <Contents><Key>p/two</Key><Size>2</Size></Contents></ListBucketResult>
      """
    let page = S3Store.listPage(Array(body.utf8))
    XCTAssertEqual(page.keys, ["p/one", "p/two"])
    XCTAssertTrue(page.truncated)
    XCTAssertEqual(page.nextToken, "a+b/c&d=")
  }
}
