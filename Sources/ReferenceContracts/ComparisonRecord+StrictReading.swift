import ReferenceImageCore

// The comparison records of `ArchiveManifest+StrictReading`, read field by field.

private typealias Reader = StrictJSONReader
private typealias Unsure = StrictJSONReader.Unsure

extension ComparisonRecord {
  enum Field: String, CaseIterable {
    case version, kind, tolerance, threshold, includeAntiAliasing, requiredAccuracy
    case maximumDifferingPixels, ignoredRegions, shiftTolerance
  }
  static let fields = Reader.Fields(Field.allCases)

  init(reading reader: inout StrictJSONReader) throws(StrictJSONReader.Unsure) {
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
  enum Field: String, CaseIterable {
    case x, y, width, height
  }
  static let fields = Reader.Fields(Field.allCases)

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
