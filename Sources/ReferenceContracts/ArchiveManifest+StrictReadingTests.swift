// The test records of `ArchiveManifest+StrictReading`, read field by field.

private typealias Reader = StrictJSONReader
private typealias Unsure = StrictJSONReader.Unsure

extension ArchiveManifest.ReferenceUse {
  enum Field: String, CaseIterable {
    case path, test, testCase, file, line, verdict
  }
  static let fields = Reader.Fields(Field.allCases)

  init(reading reader: inout StrictJSONReader) throws(StrictJSONReader.Unsure) {
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
  enum Field: String, CaseIterable {
    case test, seconds
  }
  static let fields = Reader.Fields(Field.allCases)

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
  enum Field: String, CaseIterable {
    case test, file
  }
  static let fields = Reader.Fields(Field.allCases)

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
  enum Field: String, CaseIterable {
    case scope, arguments, swiftTestingTestsNotRun
  }
  static let fields = Reader.Fields(Field.allCases)

  init(reading reader: inout StrictJSONReader) throws(StrictJSONReader.Unsure) {
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
