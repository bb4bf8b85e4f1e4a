import Foundation
import ReferenceImageCore

// `ArchiveManifest` read field by field from its bytes, without `JSONDecoder`: the same value
// the synthesised `Decodable` conformances build (missing or null optionals are nil, unknown
// keys are ignored), or nil where `StrictJSONReader` is unsure and `JSONDecoder` decides.

private typealias Reader = StrictJSONReader
private typealias Unsure = StrictJSONReader.Unsure

extension ArchiveManifest {
  /// The manifest `JSONDecoder` with `.iso8601` dates would decode from `data`, or nil when
  /// the data holds anything the strict reader does not vouch for (including every document
  /// `JSONDecoder` refuses).
  package static func strictlyRead(_ data: Data) -> ArchiveManifest? {
    data.withUnsafeBytes { bytes in
      var reader = StrictJSONReader(bytes)
      return try? reader.document { (reader) throws(Unsure) in
        try ArchiveManifest(reading: &reader)
      }
    }
  }

  /// The keys the strict reader reads, by type. A key it does not know is skipped, as
  /// `JSONDecoder` skips it: a test holds these against each type's stored properties, so a
  /// field added to a type is added here too, not read as nil.
  package static let strictlyReadKeys: [String: [String]] = [
    "ArchiveManifest": fields.names, "Image": Image.fields.names,
    "FailedComparison": FailedComparison.fields.names,
    "UnchangedImage": UnchangedImage.fields.names, "ReferenceUse": ReferenceUse.fields.names,
    "TestDuration": TestDuration.fields.names, "Coverage": Coverage.fields.names,
    "FailedTest": FailedTest.fields.names,
    "Worker": Worker.fields.names, "ComparisonRecord": ComparisonRecord.fields.names,
    "IgnoredRegion": IgnoredRegion.fields.names,
  ]

  enum Field: String, CaseIterable {
    case formatVersion, toolVersion, runID, run, worker, mode, startedAt, endedAt, completion
    case tests, images, unchangedImages, verifiedReferences, referenceUses, testDurations
    case skippedTests, failedTests, coverage, replicas, variants
  }
  static let fields = Reader.Fields(Field.allCases)

  private init(reading reader: inout Reader) throws(Unsure) {
    var formatVersion: Int?
    var toolVersion, runID, run: String?
    var worker: Worker?
    var mode: RunMode?
    var startedAt, endedAt: Date?
    var completion: Completion?
    var tests, verifiedReferences, skippedTests, variants: [String]?
    var failedTests: [FailedTest]?
    var images: [Image]?
    var unchangedImages: [UnchangedImage]?
    var referenceUses: [ReferenceUse]?
    var testDurations: [TestDuration]?
    var coverage: Coverage?
    var replicas: Int?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .formatVersion: formatVersion = try reader.int()
      case .toolVersion: toolVersion = try reader.string()
      case .runID: runID = try reader.string()
      case .run: run = try reader.optional { (reader) throws(Unsure) in try reader.string() }
      case .worker: worker = try Worker(reading: &reader)
      case .mode: mode = RunMode(rawValue: try reader.string())
      case .startedAt: startedAt = try reader.iso8601Date()
      case .endedAt:
        endedAt = try reader.optional { (reader) throws(Unsure) in try reader.iso8601Date() }
      case .completion: completion = try reader.rawValue(Completion.self)
      case .tests: tests = try reader.strings()
      case .images:
        images = try reader.array { (reader) throws(Unsure) in try Image(reading: &reader) }
      case .unchangedImages:
        unchangedImages = try reader.optional { (reader) throws(Unsure) in
          try reader.array { (reader) throws(Unsure) in try UnchangedImage(reading: &reader) }
        }
      case .verifiedReferences: verifiedReferences = try reader.strings()
      case .referenceUses:
        referenceUses = try reader.optional { (reader) throws(Unsure) in
          try reader.array { (reader) throws(Unsure) in try ReferenceUse(reading: &reader) }
        }
      case .testDurations:
        testDurations = try reader.optional { (reader) throws(Unsure) in
          try reader.array { (reader) throws(Unsure) in try TestDuration(reading: &reader) }
        }
      case .skippedTests:
        skippedTests = try reader.optional { (reader) throws(Unsure) in try reader.strings() }
      case .failedTests:
        failedTests = try reader.optional { (reader) throws(Unsure) in
          try reader.array { (reader) throws(Unsure) in try FailedTest(reading: &reader) }
        }
      case .coverage:
        coverage = try reader.optional { (reader) throws(Unsure) in try Coverage(reading: &reader) }
      case .replicas: replicas = try reader.optional { (reader) throws(Unsure) in try reader.int() }
      case .variants:
        variants = try reader.optional { (reader) throws(Unsure) in try reader.strings() }
      }
    }
    guard let formatVersion, let toolVersion, let runID, let worker, let mode, let startedAt,
      let completion, let tests, let images, let verifiedReferences
    else { throw Unsure() }
    self.init(
      formatVersion: formatVersion, toolVersion: toolVersion, runID: runID, run: run,
      worker: worker, mode: mode, startedAt: startedAt, endedAt: endedAt, completion: completion,
      tests: tests, images: images, unchangedImages: unchangedImages,
      verifiedReferences: verifiedReferences, referenceUses: referenceUses,
      testDurations: testDurations, skippedTests: skippedTests, failedTests: failedTests,
      coverage: coverage,
      replicas: replicas, variants: variants)
  }
}

extension ArchiveManifest.Worker {
  fileprivate enum Field: String, CaseIterable {
    case host, pid, os, swiftVersion, ci
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

  fileprivate init(reading reader: inout Reader) throws(Unsure) {
    var host, os, swiftVersion: String?
    var pid: Int32?
    var ci: [String: String]?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .host: host = try reader.string()
      case .pid: pid = try reader.int32()
      case .os: os = try reader.string()
      case .swiftVersion: swiftVersion = try reader.string()
      case .ci: ci = try reader.stringDictionary()
      }
    }
    guard let host, let pid, let os, let swiftVersion, let ci else { throw Unsure() }
    self.init(host: host, pid: pid, os: os, swiftVersion: swiftVersion, ci: ci)
  }
}
