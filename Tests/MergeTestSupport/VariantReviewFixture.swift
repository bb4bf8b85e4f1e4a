import Foundation
import ReferenceContracts
import ReferenceImageCore
import TestSupport
import XCTest

/// A review report of a merge with base changes and two variants, made by `merge-refs
/// --dry-run --report` from real archives: the package declares `linux-arm64 → linux → base`
/// (and `macos`), and holds `a.png`, `b.png` and `b@@linux.png`; a base run changes `a.png`
/// (and renders `b.png` as it is), a `linux` run adds `a@@linux.png` and changes
/// `b@@linux.png`, a `linux-arm64` run adds `b@@linux-arm64.png`.
public struct VariantReviewFixture {
  public static let folder = "Tests/ChartTests/__References__/ChartTests"

  /// The path of reference `name`'s file for `variant` (nil: the base).
  public static func path(_ name: String, _ variant: String? = nil) -> String {
    MergeTestSupport.path(name, variant, in: folder)
  }

  /// Each card's path, outcome, variant and the file it compares with (path, variant,
  /// fallback), in the order the page lists them: the base's, then each variant's by name.
  public static let expected:
    [(path: String, outcome: String, variant: String?, compared: Compared)] = [
      (path("a"), "updated", nil, .init(path("a"), nil, fallback: false)),
      (path("a", "linux"), "added", "linux", .init(path("a"), nil, fallback: true)),
      (path("b", "linux"), "updated", "linux", .init(path("b", "linux"), "linux", fallback: false)),
      (
        path("b", "linux-arm64"), "added", "linux-arm64",
        .init(path("b", "linux"), "linux", fallback: true)
      ),
    ]

  /// The file a card compares with.
  public struct Compared: Equatable, Sendable {
    public var path: String
    public var variant: String?
    public var fallback: Bool
    public init(_ path: String, _ variant: String?, fallback: Bool) {
      (self.path, self.variant, self.fallback) = (path, variant, fallback)
    }
  }

  public var destination: URL
  /// The report's folder (`index.html`, `review-data.js`, `images/`).
  public var report: URL
  /// The new pixels of each path, by path.
  public var after: [String: RGBAImage]
  /// The three runs' archives: base, linux, linux-arm64.
  public var archives: [URL] = []

  /// Writes the package and the archives under `root`, and the report of their merge.
  public init(root: URL, width: Int = 48, height: Int = 32) throws {
    destination = root.appendingPathComponent("package")
    report = root.appendingPathComponent("review")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    try Data(
      """
      {"schemaVersion": 1, "base": "linux-x86_64",
       "variants": {"linux-arm64": ["linux"], "linux": [], "macos": []}}
      """.utf8
    ).write(to: destination.appendingPathComponent(ReferenceVariants.fileName))
    let image = { (seed: Int) in try noiseImage(seed: seed, width: width, height: height) }
    let b = try image(2)
    for (path, pixels) in [
      (Self.path("a"), try image(1)), (Self.path("b"), b), (Self.path("b", "linux"), try image(3)),
    ] {
      try writeFile(try PNGEncoder().encode(pixels), to: destination.appendingPathComponent(path))
    }
    after = [
      Self.path("a"): try image(11), Self.path("a", "linux"): try image(12),
      Self.path("b", "linux"): try image(13), Self.path("b", "linux-arm64"): try image(14),
    ]
    let runs: [(String, [(String, RGBAImage)])] = [
      ("base", [(Self.path("a"), try image(11)), (Self.path("b"), b)]),
      (
        "linux",
        [(Self.path("a", "linux"), try image(12)), (Self.path("b", "linux"), try image(13))]
      ),
      ("linux-arm64", [(Self.path("b", "linux-arm64"), try image(14))]),
    ]
    for (index, (name, images)) in runs.enumerated() {
      var builder = ArchiveBuilder(host: "\(name)-host", generatedAt: day(1 + index))
      for (path, pixels) in images { try builder.add(path, pixels) }
      archives.append(root.appendingPathComponent("artifacts/\(name).zip"))
      try builder.write(to: archives[index])
    }
    let run = try MergeRefs.run(
      ["--dry-run", "--report", report.path] + archives.map(\.path) + [destination.path])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    XCTAssertTrue(run.output.contains("2 added, 2 updated"), run.output)
  }
}
