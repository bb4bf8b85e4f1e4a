import Foundation

extension ArchiveManifest {
  /// What a shard's evidence needs of a manifest: its run's tests, and its images counted, not
  /// built. A merge reads every manifest again for its images.
  package struct Facts: Decodable, ManifestVersioned, Equatable, Sendable {
    package let formatVersion: Int
    /// The images rendered: archived, or recorded unchanged (rendered too, and counted by the
    /// shard's record whether or not their references already held them).
    package let imageCount: Int
    package let testDurations: [TestDuration]?
    package let skippedTests: [String]?
    package let failedTests: [FailedTest]?

    /// An array element read as nothing.
    private struct Counted: Decodable {
      init(from decoder: Decoder) {}
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
      case formatVersion, images, unchangedImages, testDurations, skippedTests, failedTests
    }

    package init(from decoder: Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      formatVersion = try container.decode(Int.self, forKey: .formatVersion)
      imageCount =
        try container.decode([Counted].self, forKey: .images).count
        + (try container.decodeIfPresent([Counted].self, forKey: .unchangedImages)?.count ?? 0)
      testDurations = try container.decodeIfPresent([TestDuration].self, forKey: .testDurations)
      skippedTests = try container.decodeIfPresent([String].self, forKey: .skippedTests)
      failedTests = try container.decodeIfPresent([FailedTest].self, forKey: .failedTests)
    }

    /// Reads the facts of a manifest, as `ArchiveManifest.decode(_:source:)` reads a whole
    /// one: strictly from the bytes, leaving to `JSONDecoder` every document the strict reader
    /// does not vouch for. An up-to-date rerun of a fleet reads every manifest's facts, and
    /// `JSONDecoder` alone would make that reading a large share of its time.
    package static func read(_ data: Data, source: String) throws(ManifestError) -> Facts {
      guard let facts = strictlyRead(data) else {
        return try ArchiveManifest.decode(Facts.self, from: data, source: source)
      }
      return try ArchiveManifest.supported(facts, source: source)
    }

    /// The facts `JSONDecoder` would decode, or nil where the strict reader is unsure.
    package static func strictlyRead(_ data: Data) -> Facts? {
      data.withUnsafeBytes { bytes in
        var reader = StrictJSONReader(bytes)
        return try? reader.document { (reader) throws(StrictJSONReader.Unsure) in
          try Facts(reading: &reader)
        }
      }
    }

    private static let fields = StrictJSONReader.Fields(CodingKeys.allCases)

    private init(reading reader: inout StrictJSONReader) throws(StrictJSONReader.Unsure) {
      typealias Unsure = StrictJSONReader.Unsure
      var formatVersion, images: Int?
      var unchangedImages: Int??
      var testDurations: [TestDuration]??
      var skippedTests: [String]??
      var failedTests: [FailedTest]??
      try reader.object(Self.fields) { (field, reader) throws(Unsure) in
        switch field {
        case .formatVersion: formatVersion = try reader.int()
        case .images: images = try reader.skippedElements()
        case .unchangedImages:
          unchangedImages = try reader.optional { (reader) throws(Unsure) in
            try reader.skippedElements()
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
        }
      }
      guard let formatVersion, let images else { throw Unsure() }
      self.formatVersion = formatVersion
      self.imageCount = images + ((unchangedImages ?? nil) ?? 0)
      self.testDurations = testDurations ?? nil
      self.skippedTests = skippedTests ?? nil
      self.failedTests = failedTests ?? nil
    }
  }
}
