import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceStore

final class SigV4SignerTests: XCTestCase {
  private static let suite = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("__Fixtures__/aws-sig-v4-test-suite")

  /// One case of AWS's suite: the request read from `request.txt`, signed as `context.json`
  /// says, compared step by step with the suite's files.
  private func check(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let folder = Self.suite.appendingPathComponent(name)
    func read(_ file: String) throws -> String {
      try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
    }
    let context = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(try read("context.json").utf8)) as? [String: Any])
    let keys = try XCTUnwrap(context["credentials"] as? [String: String])
    let credentials = SigV4Signer.Credentials(
      accessKeyID: try XCTUnwrap(keys["access_key_id"]),
      secretAccessKey: try XCTUnwrap(keys["secret_access_key"]), sessionToken: keys["token"])
    let signer = SigV4Signer(
      credentials: credentials, region: try XCTUnwrap(context["region"] as? String),
      service: try XCTUnwrap(context["service"] as? String))
    let date = try XCTUnwrap(
      ISO8601DateFormatter().date(from: try XCTUnwrap(context["timestamp"] as? String)))

    // "METHOD PATH?QUERY HTTP/1.1", header lines "Name:value", a blank line, the body.
    let request = try read("request.txt")
    let parts = request.components(separatedBy: "\n\n")
    let head = parts[0].components(separatedBy: "\n")
    let body = Array(parts.dropFirst().joined(separator: "\n\n").utf8)
    let requestLine = head[0]
    let method = String(requestLine.prefix { $0 != " " })
    let target = String(requestLine.dropFirst(method.count + 1).dropLast(" HTTP/1.1".count))
    let (path, queryText) =
      target.firstIndex(of: "?").map {
        (String(target[..<$0]), String(target[target.index(after: $0)...]))
      } ?? (target, "")
    let query: [(name: String, value: String)] = queryText.split(separator: "&").map { pair in
      let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      return (
        String(halves[0]).removingPercentEncoding ?? String(halves[0]),
        halves.count > 1 ? (String(halves[1]).removingPercentEncoding ?? String(halves[1])) : ""
      )
    }
    var headers: [(name: String, value: String)] = []
    for line in head.dropFirst() where !line.isEmpty {
      let colon = try XCTUnwrap(line.firstIndex(of: ":"), line)
      headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
    }
    let payload = SigV4Signer.payloadHash(body)
    if context["sign_body"] as? Bool == true { headers.append(("x-amz-content-sha256", payload)) }

    let signed = signer.sign(
      SigV4Signer.Request(
        method: method, path: path, query: query, headers: headers, payloadSHA256: payload),
      at: date)
    XCTAssertEqual(
      signed.canonicalRequest, try read("header-canonical-request.txt"), name, file: file,
      line: line)
    XCTAssertEqual(
      signed.stringToSign, try read("header-string-to-sign.txt"), name, file: file, line: line)
    XCTAssertEqual(
      signed.signature,
      try read("header-signature.txt").trimmingCharacters(in: .whitespacesAndNewlines), name,
      file: file, line: line)
    let authorization = try read("header-signed-request.txt").components(separatedBy: "\n")
      .first { $0.hasPrefix("Authorization:") }
    XCTAssertEqual(
      "Authorization:" + signed.authorization, authorization, name, file: file, line: line)
  }

  func testSign_getVanilla_matchesTheSuite() throws { try check("get-vanilla") }

  func testSign_queryOrderKeyCase_sortsByByteOrder() throws {
    try check("get-vanilla-query-order-key-case")
  }

  func testSign_unreservedQuery_isNotEncoded() throws { try check("get-vanilla-query-unreserved") }

  func testSign_headerValues_areTrimmedAndSpacesCollapsed() throws {
    try check("get-header-value-trim")
  }

  func testSign_spaceInPath_isEncodedOnce() throws { try check("get-space-unnormalized") }

  func testSign_sessionToken_isSignedAsXAmzSecurityToken() throws {
    try check("get-vanilla-with-session-token")
  }

  func testSign_postWithQuery_matchesTheSuite() throws { try check("post-vanilla-query") }

  func testSign_formBody_isHashedIntoTheSignature() throws {
    try check("post-x-www-form-urlencoded")
  }

  // The examples of AWS's S3 documentation, "Signature Calculations for the Authorization
  // Header: Transferring Payload in a Single Chunk (AWS Signature Version 4)" (Amazon S3 API
  // Reference, sig-v4-header-based-auth.html): the example keys, bucket examplebucket.
  private let s3Example = SigV4Signer(
    credentials: .init(
      accessKeyID: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    region: "us-east-1", service: "s3")
  private let s3Date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
  private let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

  func testSign_s3GetObjectExample() {
    let signed = s3Example.sign(
      .init(
        method: "GET", path: "/test.txt",
        headers: [
          ("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
          ("x-amz-content-sha256", emptyHash),
        ], payloadSHA256: emptyHash), at: s3Date)
    XCTAssertEqual(
      signed.canonicalRequest,
      """
      GET
      /test.txt

      host:examplebucket.s3.amazonaws.com
      range:bytes=0-9
      x-amz-content-sha256:\(emptyHash)
      x-amz-date:20130524T000000Z

      host;range;x-amz-content-sha256;x-amz-date
      \(emptyHash)
      """)
    XCTAssertEqual(
      signed.stringToSign,
      """
      AWS4-HMAC-SHA256
      20130524T000000Z
      20130524/us-east-1/s3/aws4_request
      7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
      """)
    XCTAssertEqual(
      signed.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
  }

  func testSign_s3PutObjectExample_encodesTheDollarSign() {
    let body = Array("Welcome to Amazon S3.".utf8)
    let hash = SigV4Signer.payloadHash(body)
    XCTAssertEqual(hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
    let signed = s3Example.sign(
      .init(
        method: "PUT", path: "/test$file.text",
        headers: [
          ("Host", "examplebucket.s3.amazonaws.com"), ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
          ("x-amz-storage-class", "REDUCED_REDUNDANCY"), ("x-amz-content-sha256", hash),
        ], payloadSHA256: hash), at: s3Date)
    XCTAssertTrue(signed.canonicalRequest.hasPrefix("PUT\n/test%24file.text\n\n"))
    XCTAssertEqual(
      signed.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
  }

  func testSign_s3ListObjectsExample_sortsTheQuery() {
    let signed = s3Example.sign(
      .init(
        method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")],
        headers: [
          ("Host", "examplebucket.s3.amazonaws.com"), ("x-amz-content-sha256", emptyHash),
        ], payloadSHA256: emptyHash), at: s3Date)
    XCTAssertEqual(signed.encodedQuery, "max-keys=2&prefix=J")
    XCTAssertEqual(
      signed.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
  }

  func testCredentials_printNoValue() {
    let keys = SigV4Signer.Credentials(
      accessKeyID: "AKIDVISIBLE", secretAccessKey: "SECRETVALUE", sessionToken: "TOKENVALUE")
    for text in [
      "\(keys)", String(reflecting: keys),
      {
        var out = ""; dump(keys, to: &out); return out
      }(),
    ] {
      for secret in ["AKIDVISIBLE", "SECRETVALUE", "TOKENVALUE"] {
        XCTAssertFalse(text.contains(secret), text)
      }
    }
  }
}
