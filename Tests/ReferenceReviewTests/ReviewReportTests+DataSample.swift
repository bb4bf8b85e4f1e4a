import Foundation
import XCTest

/// The review data's sample (`__Fixtures__/review-data-sample.json`), which `Scripts/lint-page`
/// type-checks against the page's `types.d.ts` as `const sample: Complete<ReviewData>`: every
/// field the types declare must be in it, and nothing else. This test keeps the sample the
/// shape of what the report writes (the same fields at every level, values of the same JSON
/// kinds), so a field added to `ReviewData.swift` and not to `types.d.ts`, or the other way
/// round, fails one of the two. `REVIEW_DATA_SAMPLE=write` rewrites the sample.
extension ReviewReportTests {
  func testDataSample_hasTheShapeOfWhatTheReportWrites() throws {
    let fixture = try makeFixture()
    let root = fixture.destination.deletingLastPathComponent()
    let report = root.appendingPathComponent("review")
    // Both archives: every kind of card, the conflict's rivals included.
    let run = try MergeRefs.run(
      ["--dry-run", "--report", report.path] + fixture.archives.map(\.path)
        + [fixture.destination.path])
    XCTAssertEqual(run.exitStatus, .conflicts, run.all)
    let written = try ReviewDataScript.json(of: try ReviewDataScript.text(inReport: report))
    let sampleURL = Self.fixtures.appendingPathComponent("review-data-sample.json")
    if ProcessInfo.processInfo.environment["REVIEW_DATA_SAMPLE"] == "write" {
      try Self.sampleText(written, root: root).write(
        to: sampleURL, atomically: true, encoding: .utf8)
    }
    let sample = try Data(contentsOf: sampleURL)
    XCTAssertEqual(
      JSONShape(try JSONSerialization.jsonObject(with: sample)),
      JSONShape(try JSONSerialization.jsonObject(with: written)),
      "the sample is not the shape of what the report writes: rewrite it with "
        + "REVIEW_DATA_SAMPLE=write swift test --filter testDataSample, then make types.d.ts "
        + "agree (Scripts/lint-page)")
  }

  private static var fixtures: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("__Fixtures__")
  }

  /// The data as the sample keeps it: indented, the temporary folder as `/tmp/review-sample`,
  /// the report's id and time fixed, so the sample changes only with the format.
  private static func sampleText(_ json: Data, root: URL) throws -> String {
    var object = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
    object["id"] = String(repeating: "0", count: 32)
    object["generatedAt"] = "2026-01-01T00:00:00Z"
    let pretty = try JSONSerialization.data(
      withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    return String(decoding: pretty, as: UTF8.self)
      .replacingOccurrences(of: root.path, with: "/tmp/review-sample") + "\n"
  }
}

/// What a JSON value's type checker sees of it: an object's members by name, an array's
/// elements merged into one shape, and the kinds of scalars (null beside a kind when a value
/// is missing somewhere).
indirect enum JSONShape: Equatable, CustomStringConvertible {
  case scalars(Set<String>)
  case object([String: JSONShape], orNull: Bool)
  case array(JSONShape?, orNull: Bool)

  init(_ value: Any) {
    switch value {
    case let object as [String: Any]:
      self = .object(object.mapValues(JSONShape.init), orNull: false)
    case let array as [Any]:
      self = .array(array.map(JSONShape.init).reduce(nil) { $0?.merged($1) ?? $1 }, orNull: false)
    case is NSNull: self = .scalars(["null"])
    case is NSNumber: self = .scalars(["number"])
    case is String: self = .scalars(["string"])
    default: self = .scalars(["\(type(of: value))"])
    }
  }

  /// One shape for two values found in the same place.
  func merged(_ other: JSONShape) -> JSONShape {
    switch (self, other) {
    case (.scalars(let a), .scalars(let b)): return .scalars(a.union(b))
    case (.object(let a, let nullA), .object(let b, let nullB)):
      return .object(a.merging(b) { $0.merged($1) }, orNull: nullA || nullB)
    case (.array(let a, let nullA), .array(let b, let nullB)):
      let element = a.map { first in b.map { first.merged($0) } ?? first } ?? b
      return .array(element, orNull: nullA || nullB)
    case (.scalars(let kinds), let shape), (let shape, .scalars(let kinds)):
      guard kinds == ["null"] else { return .scalars(kinds.union([shape.description])) }
      return shape.orNull
    default: return .scalars([description, other.description])
    }
  }

  private var orNull: JSONShape {
    switch self {
    case .object(let members, _): return .object(members, orNull: true)
    case .array(let element, _): return .array(element, orNull: true)
    case .scalars(let kinds): return .scalars(kinds.union(["null"]))
    }
  }

  var description: String {
    switch self {
    case .scalars(let kinds): return kinds.sorted().joined(separator: " | ")
    case .object(let members, let orNull):
      let list = members.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
      return "{ \(list.joined(separator: ", ")) }" + (orNull ? " | null" : "")
    case .array(let element, let orNull):
      return "[\(element?.description ?? "")]" + (orNull ? " | null" : "")
    }
  }
}
