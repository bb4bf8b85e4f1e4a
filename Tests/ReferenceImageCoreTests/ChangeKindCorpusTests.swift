import RenderCorpus
import XCTest

@testable import ReferenceImageCore

/// The change-kind corpus (`ChangeKindCorpus`): realistic renders with one real change each, and
/// the kinds a person names for it. Each pair is classified from the exact comparison's
/// difference image, as a failing `assertImage` classifies it; the test prints the agreement
/// and requires all of it. A kind is named with its offset when it is a move; the others by
/// name. A region that mixes kinds must say `changed`, never the more reassuring one.
final class ChangeKindCorpusTests: XCTestCase {
  /// The corpus, drawn once for the tests that read it.
  private static let drawn = Result { try ChangeKindCorpus.cases() }

  private static func label(_ kind: ChangeKind) -> String {
    if case .moved = kind { return kind.description }
    return kind.name
  }

  func testCorpus_everyPairHasTheKindsAPersonNames() throws {
    let cases = try Self.drawn.get()
    XCTAssertGreaterThanOrEqual(cases.count, 30)
    var agreed = 0
    var report: [String] = []
    for item in cases {
      let difference = ImageComparison.exact.differenceImage(item.image, item.reference)
      let regions = ChangeClassifier.classify(
        item.image, reference: item.reference, differenceImage: difference
      ).regions
      let found = Set(regions.map { Self.label($0.kind) })
      let agrees = found == item.expected && regions.count >= item.minimumRegions
      if agrees { agreed += 1 }
      report.append(
        "\(agrees ? "agrees" : "DIFFERS"): \(item.name): expected \(item.expected.sorted()), "
          + "found \(found.sorted()) in \(regions.count) region(s)")
    }
    let summary =
      "change-kind corpus: \(agreed) of \(cases.count) pairs agree "
      + "(\(agreed * 100 / max(cases.count, 1))%)"
    print(([summary] + report).joined(separator: "\n"))
    XCTAssertEqual(
      agreed, cases.count,
      ([summary] + report.filter { $0.hasPrefix("DIFFERS") })
        .joined(separator: "\n"))
  }

  /// The corpus is a real test: every pair differs, and no two cases are one pair.
  func testCorpus_pairsDifferAndAreDistinct() throws {
    let cases = try Self.drawn.get()
    for item in cases {
      XCTAssertNotEqual(item.image.pixels, item.reference.pixels, item.name)
    }
    XCTAssertEqual(Set(cases.map(\.name)).count, cases.count)
  }
}
