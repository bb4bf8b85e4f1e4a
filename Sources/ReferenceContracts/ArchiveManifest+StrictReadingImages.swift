import ReferenceImageCore

// The image records of `ArchiveManifest+StrictReading`, read field by field.

private typealias Reader = StrictJSONReader
private typealias Unsure = StrictJSONReader.Unsure

extension ArchiveManifest.Image {
  enum Field: String, CaseIterable {
    case path, test, testCase, width, height, byteCount, pngSHA256, pixelSHA256
    case failedComparison, comparison
  }
  static let fields = Reader.Fields(Field.allCases)

  init(reading reader: inout StrictJSONReader) throws(StrictJSONReader.Unsure) {
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
  enum Field: String, CaseIterable {
    case referencePixelSHA256, comparison, verdict, differingPixels, totalPixels, file, line
  }
  static let fields = Reader.Fields(Field.allCases)

  init(reading reader: inout StrictJSONReader) throws(StrictJSONReader.Unsure) {
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
  enum Field: String, CaseIterable {
    case path, test, testCase, width, height, pixelSHA256, pngSHA256, comparison
  }
  static let fields = Reader.Fields(Field.allCases)

  init(reading reader: inout StrictJSONReader) throws(StrictJSONReader.Unsure) {
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
