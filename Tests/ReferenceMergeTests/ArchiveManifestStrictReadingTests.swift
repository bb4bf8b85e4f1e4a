import Foundation
import MergeTestSupport
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import TestSupport
import XCTest

/// `ArchiveManifest.decode` reads manifests with a strict reader of its own and leaves every
/// document it is unsure of to `JSONDecoder`. These tests hold the two against each other: on
/// every manifest the repository holds, on generated manifests with every optional field,
/// escapes and Unicode in their strings, and on thousands of mutations of them, the strict
/// reader returns `JSONDecoder`'s value (byte for byte once encoded) or nothing, and `decode`
/// returns what `JSONDecoder` returns, or throws the same `ManifestError`.
///
/// (Here rather than beside the manifest's other tests: the repository's manifests live in
/// zips, which this target can read.)
final class ArchiveManifestStrictReadingTests: XCTestCase {
  /// How the comparison of one document came out.
  private enum Outcome: Equatable {
    /// The strict reader read it, as `JSONDecoder` did.
    case readStrictly
    /// The strict reader left it to `JSONDecoder`, which read it.
    case leftToDecoder
    /// Both refused it (the strict reader by leaving it, `JSONDecoder` with an error).
    case refused
  }

  func testRepositoryManifests_areReadStrictly_asJSONDecoderReadsThem() throws {
    let manifests = try repositoryManifests()
    // Five seeds hold one, and the nested seed's zips one each.
    XCTAssertGreaterThanOrEqual(manifests.count, 7, "\(manifests.map(\.name))")
    for (name, data) in manifests {
      XCTAssertEqual(try compare(data, name), .readStrictly, name)
      XCTAssertNotNil(ArchiveManifest.Facts.strictlyRead(data), name)
      // The fuzz seeds' manifests were written by `encoded()` (`ArchiveMergeSeeds`): read and
      // written again, they are the same bytes, whatever type holds each field.
      if name.contains("/Fuzz/") {
        XCTAssertEqual(try ArchiveManifest.decode(data, source: name).encoded(), data, name)
      }
    }
  }

  func testArchiveBuilderManifests_areReadStrictly_asJSONDecoderReadsThem() throws {
    // The manifests the merge tests build their archives with, every kind of record included.
    var builder = ArchiveBuilder(shard: "2/4", generatedAt: day(3))
    let red = try RGBAImage(width: 3, height: 2, color: .red)
    try builder.add("Tests/T/__References__/Chart/bar.png", red)
    try builder.add("Tests/T/__References__/Chart/café ☕︎.png", red)
    builder.addUnchanged("Tests/T/__References__/Chart/pie.png", red, reference: [1, 2])
    builder.failedComparisons["Tests/T/__References__/Chart/bar.png"] = .init(
      referencePixelSHA256: nil, comparison: "exact", verdict: "no reference",
      differingPixels: nil, totalPixels: 6, file: "Tests/T/ChartTests.swift", line: 12)
    builder.testDurations = [.init(test: "T.ChartTests/testBar", seconds: 0.25)]
    builder.skippedTests = ["T.ChartTests/testSkipped"]
    builder.replicas = 3
    builder.run = "run-1"
    builder.variants = ["base", "linux-arm64 (undeclared)"]
    for completion in [ArchiveManifest.Completion.finished, .running, .failed] {
      builder.completion = completion
      let data = try builder.manifest.encoded()
      XCTAssertEqual(try compare(data, "builder, \(completion)"), .readStrictly)
    }
  }

  func testGeneratedManifests_areReadStrictly_asJSONDecoderReadsThem() throws {
    var random = SplitMix64(seed: 39)
    for index in 0..<300 {
      let manifest = generatedManifest(&random)
      for (style, data) in try encodings(of: manifest) {
        XCTAssertEqual(try compare(data, "generated \(index) (\(style))"), .readStrictly)
        XCTAssertEqual(ArchiveManifest.strictlyRead(data), manifest, "generated \(index)")
      }
    }
  }

  func testMutatedManifests_readStrictlyOnlyAsJSONDecoderReadsThem() throws {
    var random = SplitMix64(seed: 4)
    var outcomes: [Outcome: Int] = [:]
    let seeds =
      try repositoryManifests().map(\.data)
      + (0..<40).flatMap { _ in try encodings(of: generatedManifest(&random)).map(\.data) }
    for (index, seed) in seeds.enumerated() {
      for round in 0..<60 {
        let mutated = mutate(Array(seed), &random)
        outcomes[try compare(Data(mutated), "seed \(index) mutation \(round)"), default: 0] += 1
      }
    }
    // Each kind of outcome happens, or the mutations test less than they seem to.
    for outcome in [Outcome.readStrictly, .leftToDecoder, .refused] {
      XCTAssertGreaterThan(outcomes[outcome] ?? 0, 50, "\(outcome) in \(outcomes)")
    }
  }

  func testHandWrittenEdges_readStrictlyOnlyAsJSONDecoderReadsThem() throws {
    let base = try String(decoding: ArchiveManifest.encodedForEdges(), as: UTF8.self)
    var outcomes: [Outcome] = []
    for (name, edit) in Self.edges {
      let edited = edit(base)
      XCTAssertNotEqual(edited, base, "the edge \(name) changes nothing")
      outcomes.append(try compare(Data(edited.utf8), name))
    }
    XCTAssertTrue(outcomes.contains(.readStrictly))
    XCTAssertTrue(outcomes.contains(.refused))
  }

  func testFacts_skipImagesStrictly_leavingDuplicateKeysAndEscapedKeysToJSONDecoder() {
    func facts(_ records: String) -> ArchiveManifest.Facts? {
      ArchiveManifest.Facts.strictlyRead(Data(#"{"formatVersion": 2, "images": \#(records)}"#.utf8))
    }
    let many = (0..<40).map { #""k\#($0)": \#($0)"# }
    XCTAssertEqual(facts(#"[{"a": 1, "b": [2, {"c": "é"}]}, 3]"#)?.imageCount, 2)
    XCTAssertEqual(facts("[{\(many.joined(separator: ", "))}]")?.imageCount, 1)
    XCTAssertNil(facts(#"[{"a": 1, "b": 2, "a": 3}]"#), "a duplicate key")
    XCTAssertNil(facts(#"[{"a": {"b": 1, "b": 1}}]"#), "a duplicate key, nested")
    XCTAssertNil(
      facts("[{\((many + [#""k3": 0"#]).joined(separator: ", "))}]"),
      "a duplicate of an early key, past the 32 compared")
    XCTAssertNil(
      facts("[{\((many + [#""k39": 0"#]).joined(separator: ", "))}]"),
      "a duplicate of a late key, past the 32 compared")
    XCTAssertNil(facts(#"[{"\u0061": 1}]"#), "an escaped key")
    XCTAssertNil(facts(#"[{"é": 1}]"#), "a key beyond ASCII")
    XCTAssertNil(facts("[\"\u{1}\"]"), "a control character")
    XCTAssertNil(
      ArchiveManifest.Facts.strictlyRead(
        Data([UInt8](#"{"formatVersion": 2, "images": [""#.utf8) + [0xFF] + [UInt8](#""]}"#.utf8))),
      "invalid UTF-8")
  }

  /// A number skipped unread (in an image record the facts count) is vouched for exactly when
  /// the same number read as a `Double` (a test's seconds) is: integers of up to 15 digits are
  /// skipped without a parse.
  func testFacts_skippedNumbers_areVouchedForAsReadNumbersAre() {
    let spellings = [
      "0", "-0", "7", "-7", "123456789012345", "-123456789012345", "999999999999999",
      "1234567890123456", "-1234567890123456", "123456789012345678901234567890", "0.0", "-0.0",
      "0.000", "1.5", "-2.25", "1e5", "1E-5", "1e999", "-1e999", "1e-3100", "-0.0e5", "0e0",
      String(repeating: "9", count: 400),
    ]
    for number in spellings {
      let skipped = ArchiveManifest.Facts.strictlyRead(
        Data(#"{"formatVersion": 2, "images": [\#(number), {"n": \#(number)}]}"#.utf8))
      let read = ArchiveManifest.Facts.strictlyRead(
        Data(
          #"{"formatVersion": 2, "images": [], "testDurations": [{"test": "t", "seconds": \#(number)}]}"#
            .utf8))
      XCTAssertEqual(skipped != nil, read != nil, number)
      XCTAssertEqual(skipped?.imageCount, read.map { _ in 2 }, number)
    }
  }

  func testStrictReader_readsEveryStoredProperty() throws {
    // A property the strict reader does not know would be skipped as an unknown key and read
    // as nil, silently: every type's stored properties are its keys.
    let manifest = try ArchiveManifest.decode(ArchiveManifest.encodedForEdges(), source: "a.zip")
    let image = try XCTUnwrap(manifest.images.first)
    let values: [String: Any] = [
      "ArchiveManifest": manifest, "Image": image,
      "FailedComparison": try XCTUnwrap(image.failedComparison),
      "UnchangedImage": try XCTUnwrap(manifest.unchangedImages?.first),
      "ReferenceUse": try XCTUnwrap(manifest.referenceUses?.first),
      "TestDuration": try XCTUnwrap(manifest.testDurations?.first),
      "FailedTest": try XCTUnwrap(manifest.failedTests?.first),
      "Coverage": try XCTUnwrap(manifest.coverage), "Worker": manifest.worker,
      "ComparisonRecord": try XCTUnwrap(image.comparison),
      "IgnoredRegion": try XCTUnwrap(image.comparison?.ignoredRegions?.first),
    ]
    XCTAssertEqual(Set(values.keys), Set(ArchiveManifest.strictlyReadKeys.keys))
    for (type, value) in values {
      let properties = Mirror(reflecting: value).children.compactMap(\.label)
      XCTAssertEqual(
        Set(ArchiveManifest.strictlyReadKeys[type] ?? []), Set(properties), type)
    }
  }

  func testNewerFormatVersion_isRefusedByItsNumber_onBothPaths() throws {
    let base = try String(decoding: ArchiveManifest.encodedForEdges(), as: UTF8.self)
    let newer = base.replacingOccurrences(
      of: "\"formatVersion\" : 2", with: "\"formatVersion\" : 3")
    XCTAssertNotNil(ArchiveManifest.strictlyRead(Data(newer.utf8)))
    XCTAssertEqual(try compare(Data(newer.utf8), "version 3"), .readStrictly)
    XCTAssertThrowsError(try ArchiveManifest.decode(Data(newer.utf8), source: "new.zip")) {
      XCTAssertTrue("\($0)".contains("format version 3 is newer"), "\($0)")
    }
  }

  /// A digest is 64 lowercase hex digits: other text is refused where the manifest is read,
  /// naming the file and the field, on both paths, so no later reader meets it.
  func testDigestTextNotHex_isRefusedWhereTheManifestIsRead_namingTheFileAndTheField() throws {
    let base = try String(decoding: ArchiveManifest.encodedForEdges(), as: UTF8.self)
    let fields = [
      "pngSHA256": SHA256Digest(of: [1]), "pixelSHA256": SHA256Digest(of: [2]),
      "referencePixelSHA256": SHA256Digest(of: [3]), "unchangedImages": SHA256Digest(of: [4]),
    ]
    for (field, digest) in fields {
      for text in ["p", "", digest.hex.uppercased(), String(digest.hex.dropLast()), "\(digest)0"] {
        let data = Data(base.replacingOnce("\"\(digest)\"", with: "\"\(text)\"").utf8)
        XCTAssertNotEqual(data, Data(base.utf8), field)
        XCTAssertNil(ArchiveManifest.strictlyRead(data), "\(field): \(text)")
        XCTAssertEqual(try compare(data, "\(field): \(text)"), .refused)
        XCTAssertThrowsError(try ArchiveManifest.decode(data, source: "run-1.zip")) {
          let message = "\($0)"
          XCTAssertTrue(message.hasPrefix("run-1.zip: unreadable manifest: "), message)
          XCTAssertTrue(message.contains(field), message)
          XCTAssertTrue(message.contains("not a SHA-256 digest"), message)
        }
      }
    }
  }

  // MARK: The comparison

  /// Compares the strict reader and `decode` with `JSONDecoder` on one document.
  private func compare(_ data: Data, _ name: String) throws -> Outcome {
    compareFacts(data, name)
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let expected = Result { try decoder.decode(ArchiveManifest.self, from: data) }
    let strict = ArchiveManifest.strictlyRead(data)
    // `decode` against `JSONDecoder`'s own path through `decode(_:from:source:)`.
    let decoded = Result { () throws(ManifestError) in
      try ArchiveManifest.decode(data, source: "a.zip")
    }
    let viaDecoder = Result { () throws(ManifestError) in
      try ArchiveManifest.decode(ArchiveManifest.self, from: data, source: "a.zip")
    }
    switch (decoded, viaDecoder) {
    case (.success(let value), .success(let reference)):
      XCTAssertEqual(try value.encoded(), try reference.encoded(), name)
    case (.failure(let error), .failure(let reference)) where error != reference:
      // A document with several faults gets one of them from `JSONDecoder`, which checks
      // some values lazily and a dictionary's (`worker.ci`) in its keys' order, which varies
      // between runs: the error must still be one `JSONDecoder` itself gives.
      XCTAssertNil(strict, name)
      let errors = (0..<20).compactMap { _ in
        Result { () throws(ManifestError) in
          try ArchiveManifest.decode(ArchiveManifest.self, from: data, source: "a.zip")
        }.failureValue
      }
      XCTAssertTrue(errors.contains(error), "\(name): \(error) is not JSONDecoder's")
    case (.failure, .failure):
      break
    default:
      XCTFail("\(name): decode gives \(decoded), JSONDecoder \(viaDecoder)")
    }
    guard let strict else {
      return (try? expected.get()) == nil ? .refused : .leftToDecoder
    }
    guard case .success(let reference) = expected else {
      XCTFail("\(name): read strictly, but JSONDecoder refuses it: \(expected)")
      return .readStrictly
    }
    XCTAssertEqual(strict, reference, name)
    // `String` equality is canonical equivalence: the encoded bytes say the strings are the
    // same code points, and the dates and numbers the same bits.
    XCTAssertEqual(try strict.encoded(), try reference.encoded(), name)
    return .readStrictly
  }

  /// Holds the shard evidence's reading of a manifest (`ArchiveManifest.Facts`) against
  /// `JSONDecoder`'s: the same facts, or the same refusal.
  private func compareFacts(_ data: Data, _ name: String) {
    let read = Result { () throws(ManifestError) in
      try ArchiveManifest.Facts.read(data, source: "a.zip")
    }
    let viaDecoder = Result { () throws(ManifestError) in
      try ArchiveManifest.decode(ArchiveManifest.Facts.self, from: data, source: "a.zip")
    }
    switch (read, viaDecoder) {
    case (.success(let value), .success(let reference)):
      XCTAssertEqual(value, reference, "facts of \(name)")
      XCTAssertEqual(value.imageCount, reference.imageCount, "facts of \(name)")
    case (.failure(let error), .failure(let reference)) where error != reference:
      // As for whole manifests: one of the faults `JSONDecoder` itself names.
      XCTAssertNil(ArchiveManifest.Facts.strictlyRead(data), "facts of \(name)")
      let errors = (0..<20).compactMap { _ in
        Result { () throws(ManifestError) in
          try ArchiveManifest.decode(ArchiveManifest.Facts.self, from: data, source: "a.zip")
        }.failureValue
      }
      XCTAssertTrue(errors.contains(error), "facts of \(name): \(error) is not JSONDecoder's")
    case (.failure, .failure):
      break
    default:
      XCTFail("facts of \(name): read gives \(read), JSONDecoder \(viaDecoder)")
    }
  }

  // MARK: Documents

  /// The manifest of every zip and every manifest file under Tests/.
  private func repositoryManifests() throws -> [(name: String, data: Data)] {
    let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent()
    let files = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)!
      .compactMap { $0 as? URL }
    var manifests: [(name: String, data: Data)] = []
    for file in files {
      if file.lastPathComponent == ArchiveManifest.entryName {
        manifests.append((file.path, try Data(contentsOf: file)))
      }
      if file.pathExtension == "zip" { manifests += zipManifests(.file(file), name: file.path) }
    }
    return manifests
  }

  /// The manifests of a zip and of the zips it holds.
  private func zipManifests(_ zip: ZipReader.Input, name: String) -> [(name: String, data: Data)] {
    var manifests: [(name: String, data: Data)] = []
    // Hostile fixtures may not open at all; those that do may still hold manifests to read.
    try? ZipReader().forEachEntry(in: zip) { entry in
      if entry.path == ArchiveManifest.entryName {
        manifests.append((name, Data(entry.bytes)))
      } else if entry.path.hasSuffix(".zip") {
        let inner = "\(name)/\(entry.path)"
        manifests += zipManifests(.memory(entry.bytes, name: inner), name: inner)
      }
    }
    return manifests
  }

  /// A manifest as the coordinator writes it, and as other writers might: compact, with keys
  /// in declaration order and escaped slashes.
  private func encodings(of manifest: ArchiveManifest) throws -> [(style: String, data: Data)] {
    let compact = JSONEncoder()
    compact.dateEncodingStrategy = .iso8601
    return [("encoded", try manifest.encoded()), ("compact", try compact.encode(manifest))]
  }

  /// Pieces of strings: path-like text, escapes JSON must write, Unicode in every plane, and
  /// pairs of canonically equivalent spellings.
  private static let textPieces = [
    "Tests/", "__References__/", "Chart", "test", ".png", " ", "é", "e\u{301}", "\u{212A}", "K",
    "日本", "🧪", "👩‍👩‍👧", "\"", "\\", "/", "\n", "\t", "\r", "\u{8}", "\u{C}", "\u{0}", "\u{1F}",
    "\u{7F}",
    "\u{2028}", "\u{FEFF}", "\u{10FFFF}", "\u{FFFD}",
  ]

  private func text(_ random: inout SplitMix64) -> String {
    (0..<Int.random(in: 1...6, using: &random)).map { _ in
      Self.textPieces.randomElement(using: &random)!
    }.joined()
  }

  private func maybe<Value>(_ random: inout SplitMix64, _ make: (inout SplitMix64) -> Value)
    -> Value?
  {
    Bool.random(using: &random) ? make(&random) : nil
  }

  private func randomFailedTests(_ random: inout SplitMix64) -> [ArchiveManifest.FailedTest] {
    (0..<2).map { _ in
      ArchiveManifest.FailedTest(test: text(&random), file: maybe(&random) { text(&$0) })
    }
  }

  private func number(_ random: inout SplitMix64) -> Int {
    [0, 1, 16, 4096, Int.random(in: 0...Int(Int32.max), using: &random), Int.max, -1, Int.min]
      .randomElement(using: &random)!
  }

  private func fraction(_ random: inout SplitMix64) -> Double {
    [0, 0.1, 1e-300, 1e300, 0.1 + 0.2, -2.5, Double.random(in: 0...1000, using: &random)]
      .randomElement(using: &random)!
  }

  private func digest(_ random: inout SplitMix64) -> SHA256Digest {
    SHA256Digest(of: [UInt8.random(in: 0...255, using: &random)])
  }

  private func comparison(_ random: inout SplitMix64) -> ComparisonRecord {
    let criteria: [ImageComparison] = [
      .exact, .tolerance(Int.random(in: 0...255, using: &random)),
      .perceptual(threshold: fraction(&random), includeAntiAliasing: Bool.random(using: &random)),
    ]
    var comparison = criteria.randomElement(using: &random)!
    if Bool.random(using: &random) {
      comparison = comparison.ignoring([
        IgnoredRegion(x: number(&random), y: 2, width: number(&random), height: 4)
      ])
    }
    let bounds: [DifferenceBound] = [
      .requiredAccuracy(fraction(&random)), .maximumDifferingPixels(number(&random)),
    ]
    return ComparisonRecord(comparison, bound: bounds.randomElement(using: &random)!)
  }

  private func image(_ random: inout SplitMix64) -> ArchiveManifest.Image {
    .init(
      path: text(&random), test: text(&random), width: number(&random),
      height: number(&random), byteCount: number(&random), pngSHA256: digest(&random),
      pixelSHA256: digest(&random),
      failedComparison: maybe(&random) { random in
        .init(
          referencePixelSHA256: maybe(&random) { digest(&$0) }, comparison: text(&random),
          verdict: text(&random), differingPixels: maybe(&random) { number(&$0) },
          totalPixels: number(&random), file: text(&random), line: number(&random))
      },
      comparison: maybe(&random) { comparison(&$0) }, testCase: maybe(&random) { text(&$0) })
  }

  private func generatedManifest(_ random: inout SplitMix64) -> ArchiveManifest {
    let date = { (random: inout SplitMix64) in
      Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0...8_000_000_000, using: &random)))
    }
    let texts = { (random: inout SplitMix64) in
      (0..<Int.random(in: 0...3, using: &random)).map { _ in self.text(&random) }
    }
    let modes: [RunMode] = [.verify, .all, .missing, .failed, .other("invalid(x)")]
    return ArchiveManifest(
      formatVersion: Int.random(in: 1...2, using: &random), toolVersion: text(&random),
      runID: text(&random), run: maybe(&random) { text(&$0) },
      worker: .init(
        host: text(&random), pid: Int32.random(in: Int32.min...Int32.max, using: &random),
        os: text(&random), swiftVersion: text(&random),
        ci: Dictionary(texts(&random).map { ($0, text(&random)) }) { first, _ in first }),
      mode: modes.randomElement(using: &random)!, startedAt: date(&random),
      endedAt: maybe(&random) { date(&$0) },
      completion: [.finished, .running, .failed].randomElement(using: &random)!,
      tests: texts(&random),
      images: (0..<Int.random(in: 0...4, using: &random)).map { _ in image(&random) },
      unchangedImages: maybe(&random) { random in
        (0..<2).map { _ in
          .init(
            path: text(&random), test: text(&random), width: number(&random),
            height: number(&random), pixelSHA256: digest(&random), pngSHA256: digest(&random),
            testCase: maybe(&random) { text(&$0) }, comparison: maybe(&random) { comparison(&$0) })
        }
      },
      verifiedReferences: texts(&random),
      referenceUses: maybe(&random) { random in
        (0..<2).map { _ in
          .init(
            path: text(&random), test: text(&random), file: text(&random),
            line: number(&random),
            verdict: [.passed, .failed, .recorded].randomElement(using: &random)!,
            testCase: maybe(&random) { text(&$0) })
        }
      },
      testDurations: maybe(&random) { random in
        [.init(test: text(&random), seconds: fraction(&random))]
      },
      skippedTests: maybe(&random) { texts(&$0) },
      failedTests: maybe(&random) { randomFailedTests(&$0) },
      coverage: maybe(&random) { random in
        .init(
          scope: [.wholeBundle, .selectedTests, .unobserved].randomElement(using: &random)!,
          arguments: texts(&random),
          swiftTestingTestsNotRun: maybe(&random) { Bool.random(using: &$0) })
      },
      replicas: maybe(&random) { number(&$0) }, variants: maybe(&random) { texts(&$0) })
  }

  // MARK: Mutations

  /// Bytes JSON gives meaning to, and some it forbids.
  private static let mutationBytes =
    Array(
      "{}[]\":,\\/ \t\n-+.eE0123456789tfnul\u{0}\u{1F}".utf8) + [
      0x80, 0xC3, 0xE9, 0xFF, 0xEF, 0xBB,
    ]

  /// Text that is valid JSON in many places and means something else in each.
  private static let mutationTexts = [
    "null", "\"\"", "0", "-0", "1.0", "1e2", "1E+2", "01", "true", "[]", "{}", "\"\\u00e9\"",
    "\"\\ud83e\\uddea\"", "\"\\ud83e\"", "\"\\udc00\"", "\"\\u0000\"", "\"x\\/y\"", "\"\\q\"",
    "\"2026-11-27T08:20:11Z\"", "\"2026-11-27T08:20:11.5Z\"", "\"2026-11-27T08:20:11+02:00\"",
    "\"2026-02-30T00:00:00Z\"", "\"1969-12-31T23:59:59Z\"", "\"2024-02-29T23:59:59Z\"",
    "9223372036854775808", "2147483648", "1e-3100", "4e-320", "1e999", "0.0", "-0.0e5", "0e0",
    "\"unknown\" : 1,", "\"path\" : \"a\",",
    "\"formatVersion\" : 3,",
  ]

  private func mutate(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
    var bytes = bytes
    for _ in 0..<Int.random(in: 1...3, using: &random) {
      guard !bytes.isEmpty else { break }
      let at = Int.random(in: 0..<bytes.count, using: &random)
      switch Int.random(in: 0..<6, using: &random) {
      case 0: bytes.remove(at: at)
      case 1: bytes.insert(Self.mutationBytes.randomElement(using: &random)!, at: at)
      case 2: bytes[at] = Self.mutationBytes.randomElement(using: &random)!
      case 3:
        // A value swapped for another: from a value's start to the next comma or bracket.
        guard let colon = bytes[at...].firstIndex(of: UInt8(ascii: ":")) else { break }
        let end =
          bytes[(colon + 1)...].firstIndex { [UInt8(ascii: ","), UInt8(ascii: "}")].contains($0) }
          ?? bytes.count
        bytes.replaceSubrange(
          (colon + 1)..<end,
          with: Array((" " + Self.mutationTexts.randomElement(using: &random)!).utf8))
      case 4:
        // A member added at an object's start: unknown, duplicate or versioned.
        guard let brace = bytes[at...].firstIndex(of: UInt8(ascii: "{")) else { break }
        let member = Self.mutationTexts.filter { $0.hasSuffix(",") }.randomElement(using: &random)!
        bytes.insert(contentsOf: Array(member.utf8), at: brace + 1)
      default:
        // A slice repeated: duplicate members and elements, broken nesting.
        let end = min(bytes.count, at + Int.random(in: 1...200, using: &random))
        bytes.insert(contentsOf: bytes[at..<end], at: end)
      }
    }
    return bytes
  }

  // MARK: Edges

  /// Hand-written changes of a manifest's text, each at one of the strict reader's edges.
  private static let edges: [(String, @Sendable (String) -> String)] = [
    ("a byte order mark", { "\u{FEFF}" + $0 }),
    ("trailing whitespace", { $0 + " \n\t\r" }),
    ("trailing text", { $0 + "x" }),
    ("a second document", { $0 + "{}" }),
    ("an unknown member", { $0.replacingOnce("{", with: "{ \"later\" : [1, {\"a\": null}], ") }),
    (
      "an unknown member twice",
      {
        $0.replacingOnce("{", with: "{ \"later\" : 1, \"later\" : 2, ")
      }
    ),
    (
      "a known member twice",
      {
        $0.replacingOnce("{", with: "{ \"runID\" : \"x\", ")
      }
    ),
    ("an escaped key", { $0.replacingOnce("\"runID\"", with: "\"run\\u0049D\"") }),
    (
      "a non-ASCII key that means K",
      {
        $0.replacingOnce("{", with: "{ \"\u{212A}\" : 1, ")
      }
    ),
    ("a null optional", { $0.replacingOnce("\"run\" : \"r\"", with: "\"run\" : null") }),
    ("a null required", { $0.replacingOnce("\"runID\" : \"id\"", with: "\"runID\" : null") }),
    ("a missing required", { $0.replacingOnce("\"runID\" : \"id\",", with: "") }),
    (
      "an integer with a fraction", { $0.replacingOnce("\"width\" : 16", with: "\"width\" : 16.0") }
    ),
    (
      "an integer with an exponent",
      { $0.replacingOnce("\"width\" : 16", with: "\"width\" : 1.6e1") }
    ),
    (
      "an integer with a leading zero",
      { $0.replacingOnce("\"width\" : 16", with: "\"width\" : 016") }
    ),
    ("a negative zero", { $0.replacingOnce("\"width\" : 16", with: "\"width\" : -0") }),
    ("a string for an integer", { $0.replacingOnce("\"width\" : 16", with: "\"width\" : \"16\"") }),
    ("a pid beyond Int32", { $0.replacingOnce("\"pid\" : 7", with: "\"pid\" : 2147483648") }),
    (
      "an integer beyond Int",
      {
        $0.replacingOnce("\"width\" : 16", with: "\"width\" : 9223372036854775808")
      }
    ),
    (
      "seconds with an exponent",
      { $0.replacingOnce("\"seconds\" : 1.5", with: "\"seconds\" : 15e-1") }
    ),
    ("seconds too large", { $0.replacingOnce("\"seconds\" : 1.5", with: "\"seconds\" : 1e999") }),
    ("seconds too small", { $0.replacingOnce("\"seconds\" : 1.5", with: "\"seconds\" : 1e-3100") }),
    ("seconds subnormal", { $0.replacingOnce("\"seconds\" : 1.5", with: "\"seconds\" : 4e-320") }),
    ("seconds zero", { $0.replacingOnce("\"seconds\" : 1.5", with: "\"seconds\" : 0.00") }),
    ("seconds zero, signed", { $0.replacingOnce("\"seconds\" : 1.5", with: "\"seconds\" : -0") }),
    (
      "seconds zero, exponent",
      {
        $0.replacingOnce("\"seconds\" : 1.5", with: "\"seconds\" : -0.0e5")
      }
    ),
    (
      "seconds zero, exponent zero",
      {
        $0.replacingOnce("\"seconds\" : 1.5", with: "\"seconds\" : 0e0")
      }
    ),
    (
      "seconds long",
      {
        $0.replacingOnce(
          "\"seconds\" : 1.5", with: "\"seconds\" : 0.1000000000000000055511151231257827")
      }
    ),
    (
      "a date with fractional seconds",
      {
        $0.replacingOnce("2026-11-27T08:20:11Z", with: "2026-11-27T08:20:11.250Z")
      }
    ),
    (
      "a date with an offset",
      {
        $0.replacingOnce("2026-11-27T08:20:11Z", with: "2026-11-27T10:20:11+02:00")
      }
    ),
    (
      "a date before 1970",
      {
        $0.replacingOnce("2026-11-27T08:20:11Z", with: "1969-12-31T23:59:59Z")
      }
    ),
    ("a leap day", { $0.replacingOnce("2026-11-27T08:20:11Z", with: "2024-02-29T00:00:00Z") }),
    ("no such day", { $0.replacingOnce("2026-11-27T08:20:11Z", with: "2026-02-29T00:00:00Z") }),
    ("a leap second", { $0.replacingOnce("2026-11-27T08:20:11Z", with: "2016-12-31T23:59:60Z") }),
    ("an escaped slash", { $0.replacingOnce("Tests/", with: "Tests\\/") }),
    (
      "escapes of every kind",
      {
        $0.replacingOnce("Tests/", with: "T\\\"\\\\\\b\\f\\n\\r\\t\\u00e9\\u0000\\ud83e\\uddea/")
      }
    ),
    ("a lone high surrogate", { $0.replacingOnce("Tests/", with: "T\\ud83e/") }),
    ("a lone low surrogate", { $0.replacingOnce("Tests/", with: "T\\udc00/") }),
    ("an unknown escape", { $0.replacingOnce("Tests/", with: "T\\x/") }),
    ("a raw control character", { $0.replacingOnce("Tests/", with: "T\u{1}/") }),
    ("a raw tab", { $0.replacingOnce("Tests/", with: "T\t/") }),
    ("composed and decomposed", { $0.replacingOnce("Tests/", with: "é/e\u{301}/") }),
    (
      "a digest in capitals",
      { $0.replacingOnce(SHA256Digest(of: [1]).hex, with: SHA256Digest(of: [1]).hex.uppercased()) }
    ),
    ("a digest cut short", { $0.replacingOnce(SHA256Digest(of: [2]).hex + "\"", with: "\"") }),
    ("a digest that is not hex", { $0.replacingOnce(SHA256Digest(of: [3]).hex, with: "p") }),
    (
      "a digest with an escape",
      {
        let hex = SHA256Digest(of: [4]).hex
        let escaped = "\\u00" + String(hex.utf8.first!, radix: 16) + hex.dropFirst()
        return $0.replacingOnce(hex, with: escaped)
      }
    ),
    ("a null digest", { $0.replacingOnce("\"\(SHA256Digest(of: [5]))\"", with: "null") }),
    (
      "an unknown completion",
      {
        $0.replacingOnce("\"completion\" : \"finished\"", with: "\"completion\" : \"done\"")
      }
    ),
    (
      "an unknown mode",
      { $0.replacingOnce("\"mode\" : \"all\"", with: "\"mode\" : \"invalid(2)\"") }
    ),
    (
      "an unknown comparison kind",
      {
        $0.replacingOnce("\"kind\" : \"perceptual\"", with: "\"kind\" : \"fuzzy\"")
      }
    ),
    (
      "a bool as a number",
      {
        $0.replacingOnce("\"includeAntiAliasing\" : true", with: "\"includeAntiAliasing\" : 1")
      }
    ),
    (
      "deep unknown nesting",
      {
        $0.replacingOnce(
          "{",
          with: "{ \"deep\" : " + String(repeating: "[", count: 40)
            + String(repeating: "]", count: 40) + ", ")
      }
    ),
  ]
}

extension ArchiveManifest {
  /// A manifest with every field present, encoded as the coordinator writes it: the text the
  /// edges edit.
  fileprivate static func encodedForEdges() throws -> Data {
    let comparison = ComparisonRecord(
      ImageComparison.perceptual(threshold: 0.1, includeAntiAliasing: true)
        .ignoring([IgnoredRegion(x: 1, y: 2, width: 3, height: 4)]),
      bound: .requiredAccuracy(0.99))
    let manifest = ArchiveManifest(
      toolVersion: "ReferenceImages 1", runID: "id", run: "r",
      worker: .init(host: "h", pid: 7, os: "Linux", swiftVersion: "6.3", ci: ["SHARD": "1/2"]),
      mode: "all", startedAt: Date(timeIntervalSince1970: 1_795_767_611),
      endedAt: Date(timeIntervalSince1970: 1_795_767_611), completion: .finished,
      tests: ["M.C/testA"],
      images: [
        .init(
          path: "Tests/T/__References__/a.png", test: "M.C/testA", width: 16, height: 16,
          byteCount: 100, pngSHA256: SHA256Digest(of: [1]),
          pixelSHA256: SHA256Digest(of: [2]),
          failedComparison: .init(
            referencePixelSHA256: SHA256Digest(of: [3]), comparison: "exact",
            verdict: "no", differingPixels: 3, totalPixels: 256, file: "F.swift", line: 9),
          comparison: comparison, testCase: "x: 1")
      ],
      unchangedImages: [
        .init(
          path: "Tests/T/__References__/b.png", test: "M.C/testA", width: 16, height: 16,
          pixelSHA256: SHA256Digest(of: [4]), pngSHA256: SHA256Digest(of: [5]))
      ],
      verifiedReferences: ["Tests/T/__References__/c.png"],
      referenceUses: [
        .init(
          path: "Tests/T/__References__/a.png", test: "M.C/testA", file: "F", line: 1,
          verdict: .failed)
      ],
      testDurations: [.init(test: "M.C/testA", seconds: 1.5)], skippedTests: ["M.C/testB"],
      failedTests: [
        .init(test: "M.C/testC", file: "C.swift"), .init(test: "M.C/testD", file: nil),
      ],
      coverage: .init(scope: .wholeBundle, arguments: ["--filter", "x"]), replicas: 2,
      variants: ["base"])
    return try manifest.encoded()
  }
}

extension String {
  /// The text with the first `target` replaced.
  fileprivate func replacingOnce(_ target: String, with replacement: String) -> String {
    guard let range = range(of: target) else { return self }
    return replacingCharacters(in: range, with: replacement)
  }
}

extension Result {
  /// The error, if this is a failure.
  fileprivate var failureValue: Failure? {
    guard case .failure(let error) = self else { return nil }
    return error
  }
}
