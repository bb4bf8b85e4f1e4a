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

  fileprivate enum Field: String, CaseIterable {
    case formatVersion, toolVersion, runID, run, worker, mode, startedAt, endedAt, completion
    case tests, images, unchangedImages, verifiedReferences, referenceUses, testDurations
    case skippedTests, failedTests, coverage, replicas, variants
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

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

extension ArchiveManifest.Image {
  fileprivate enum Field: String, CaseIterable {
    case path, test, testCase, width, height, byteCount, pngSHA256, pixelSHA256
    case failedComparison, comparison
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

  fileprivate init(reading reader: inout Reader) throws(Unsure) {
    var path, test, testCase: String?
    var pngSHA256, pixelSHA256: SHA256Digest?
    var width, height, byteCount: Int?
    var failedComparison: ArchiveManifest.FailedComparison?
    var comparison: ComparisonRecord?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .path: path = try reader.string()
      case .test: test = try reader.string()
      case .testCase:
        testCase = try reader.optional { (reader) throws(Unsure) in try reader.string() }
      case .width: width = try reader.int()
      case .height: height = try reader.int()
      case .byteCount: byteCount = try reader.int()
      case .pngSHA256: pngSHA256 = try reader.sha256Digest()
      case .pixelSHA256: pixelSHA256 = try reader.sha256Digest()
      case .failedComparison:
        failedComparison = try reader.optional { (reader) throws(Unsure) in
          try ArchiveManifest.FailedComparison(reading: &reader)
        }
      case .comparison:
        comparison = try reader.optional { (reader) throws(Unsure) in
          try ComparisonRecord(reading: &reader)
        }
      }
    }
    guard let path, let test, let width, let height, let byteCount, let pngSHA256,
      let pixelSHA256
    else { throw Unsure() }
    self.init(
      path: path, test: test, width: width, height: height, byteCount: byteCount,
      pngSHA256: pngSHA256, pixelSHA256: pixelSHA256, failedComparison: failedComparison,
      comparison: comparison, testCase: testCase)
  }
}

extension ArchiveManifest.FailedComparison {
  fileprivate enum Field: String, CaseIterable {
    case referencePixelSHA256, comparison, verdict, differingPixels, totalPixels, file, line
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

  fileprivate init(reading reader: inout Reader) throws(Unsure) {
    var referencePixelSHA256: SHA256Digest?
    var comparison, verdict, file: String?
    var differingPixels, totalPixels, line: Int?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .referencePixelSHA256:
        referencePixelSHA256 = try reader.optional { (reader) throws(Unsure) in
          try reader.sha256Digest()
        }
      case .comparison: comparison = try reader.string()
      case .verdict: verdict = try reader.string()
      case .differingPixels:
        differingPixels = try reader.optional { (reader) throws(Unsure) in try reader.int() }
      case .totalPixels: totalPixels = try reader.int()
      case .file: file = try reader.string()
      case .line: line = try reader.int()
      }
    }
    guard let comparison, let verdict, let totalPixels, let file, let line else {
      throw Unsure()
    }
    self.init(
      referencePixelSHA256: referencePixelSHA256, comparison: comparison, verdict: verdict,
      differingPixels: differingPixels, totalPixels: totalPixels, file: file, line: line)
  }
}

extension ArchiveManifest.UnchangedImage {
  fileprivate enum Field: String, CaseIterable {
    case path, test, testCase, width, height, pixelSHA256, pngSHA256, comparison
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

  fileprivate init(reading reader: inout Reader) throws(Unsure) {
    var path, test, testCase: String?
    var pixelSHA256, pngSHA256: SHA256Digest?
    var width, height: Int?
    var comparison: ComparisonRecord?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .path: path = try reader.string()
      case .test: test = try reader.string()
      case .testCase:
        testCase = try reader.optional { (reader) throws(Unsure) in try reader.string() }
      case .width: width = try reader.int()
      case .height: height = try reader.int()
      case .pixelSHA256: pixelSHA256 = try reader.sha256Digest()
      case .pngSHA256: pngSHA256 = try reader.sha256Digest()
      case .comparison:
        comparison = try reader.optional { (reader) throws(Unsure) in
          try ComparisonRecord(reading: &reader)
        }
      }
    }
    guard let path, let test, let width, let height, let pixelSHA256, let pngSHA256 else {
      throw Unsure()
    }
    self.init(
      path: path, test: test, width: width, height: height, pixelSHA256: pixelSHA256,
      pngSHA256: pngSHA256, testCase: testCase, comparison: comparison)
  }
}

extension ArchiveManifest.ReferenceUse {
  fileprivate enum Field: String, CaseIterable {
    case path, test, testCase, file, line, verdict
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

  fileprivate init(reading reader: inout Reader) throws(Unsure) {
    var path, test, testCase, file: String?
    var line: Int?
    var verdict: Verdict?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .path: path = try reader.string()
      case .test: test = try reader.string()
      case .testCase:
        testCase = try reader.optional { (reader) throws(Unsure) in try reader.string() }
      case .file: file = try reader.string()
      case .line: line = try reader.int()
      case .verdict: verdict = try reader.rawValue(Verdict.self)
      }
    }
    guard let path, let test, let file, let line, let verdict else { throw Unsure() }
    self.init(
      path: path, test: test, file: file, line: line, verdict: verdict, testCase: testCase)
  }
}

extension ArchiveManifest.TestDuration {
  fileprivate enum Field: String, CaseIterable {
    case test, seconds
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

  /// Also read by `ArchiveManifest.Facts`.
  init(reading reader: inout StrictJSONReader) throws(StrictJSONReader.Unsure) {
    var test: String?
    var seconds: Double?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .test: test = try reader.string()
      case .seconds: seconds = try reader.double()
      }
    }
    guard let test, let seconds else { throw Unsure() }
    self.init(test: test, seconds: seconds)
  }
}

extension ArchiveManifest.FailedTest {
  fileprivate enum Field: String, CaseIterable {
    case test, file
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

  /// Also read by `ArchiveManifest.Facts`.
  init(reading reader: inout StrictJSONReader) throws(StrictJSONReader.Unsure) {
    var test: String?
    var file: String?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .test: test = try reader.string()
      case .file: file = try reader.optional { (reader) throws(Unsure) in try reader.string() }
      }
    }
    guard let test else { throw Unsure() }
    self.init(test: test, file: file)
  }
}

extension ArchiveManifest.Coverage {
  fileprivate enum Field: String, CaseIterable {
    case scope, arguments, swiftTestingTestsNotRun
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

  fileprivate init(reading reader: inout Reader) throws(Unsure) {
    var scope: Scope?
    var arguments: [String]?
    var swiftTestingTestsNotRun: Bool?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .scope: scope = try reader.rawValue(Scope.self)
      case .arguments: arguments = try reader.strings()
      case .swiftTestingTestsNotRun:
        swiftTestingTestsNotRun = try reader.optional { (reader) throws(Unsure) in
          try reader.bool()
        }
      }
    }
    guard let scope, let arguments else { throw Unsure() }
    self.init(
      scope: scope, arguments: arguments, swiftTestingTestsNotRun: swiftTestingTestsNotRun)
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

extension ComparisonRecord {
  fileprivate enum Field: String, CaseIterable {
    case version, kind, tolerance, threshold, includeAntiAliasing, requiredAccuracy
    case maximumDifferingPixels, ignoredRegions, shiftTolerance
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

  fileprivate init(reading reader: inout Reader) throws(Unsure) {
    var version, tolerance, maximumDifferingPixels, shiftTolerance: Int?
    var kind: Kind?
    var threshold, requiredAccuracy: Double?
    var includeAntiAliasing: Bool?
    var ignoredRegions: [IgnoredRegion]?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .version: version = try reader.int()
      case .kind: kind = try reader.rawValue(Kind.self)
      case .tolerance:
        tolerance = try reader.optional { (reader) throws(Unsure) in try reader.int() }
      case .threshold:
        threshold = try reader.optional { (reader) throws(Unsure) in try reader.double() }
      case .includeAntiAliasing:
        includeAntiAliasing = try reader.optional { (reader) throws(Unsure) in try reader.bool() }
      case .requiredAccuracy:
        requiredAccuracy = try reader.optional { (reader) throws(Unsure) in try reader.double() }
      case .maximumDifferingPixels:
        maximumDifferingPixels = try reader.optional { (reader) throws(Unsure) in
          try reader.int()
        }
      case .ignoredRegions:
        ignoredRegions = try reader.optional { (reader) throws(Unsure) in
          try reader.array { (reader) throws(Unsure) in try IgnoredRegion(reading: &reader) }
        }
      case .shiftTolerance:
        shiftTolerance = try reader.optional { (reader) throws(Unsure) in try reader.int() }
      }
    }
    guard let version, let kind else { throw Unsure() }
    self.init(
      version: version, kind: kind, tolerance: tolerance, threshold: threshold,
      includeAntiAliasing: includeAntiAliasing, requiredAccuracy: requiredAccuracy,
      maximumDifferingPixels: maximumDifferingPixels, ignoredRegions: ignoredRegions,
      shiftTolerance: shiftTolerance)
  }
}

extension IgnoredRegion {
  fileprivate enum Field: String, CaseIterable {
    case x, y, width, height
  }
  fileprivate static let fields = Reader.Fields(Field.allCases)

  fileprivate init(reading reader: inout Reader) throws(Unsure) {
    var x, y, width, height: Int?
    try reader.object(Self.fields) { (field, reader) throws(Unsure) in
      switch field {
      case .x: x = try reader.int()
      case .y: y = try reader.int()
      case .width: width = try reader.int()
      case .height: height = try reader.int()
      }
    }
    guard let x, let y, let width, let height else { throw Unsure() }
    self.init(x: x, y: y, width: width, height: height)
  }
}
