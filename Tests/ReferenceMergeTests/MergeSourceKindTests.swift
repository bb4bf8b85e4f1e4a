import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// The seam: a source kind is one conformer of `MergeSourceKind`. A kind the merge has never
/// heard of, defined here and nowhere else (renders held in memory, as a hosted store would
/// hand them), is planned like any other: outcomes, conflicts naming it, and its own statement
/// of what it proves.
final class MergeSourceKindTests: XCTestCase {
  /// Renders held in memory under a name.
  private struct MemoryStore: MergeSourceKind {
    let name: String
    let images: [String: [UInt8]]

    var description: String { "store://\(name)" }
    var fileURL: URL { URL(fileURLWithPath: "/nonexistent/\(name)") }
    var completenessWithoutManifest: String? { "a store lists renders, not runs" }

    static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]? {
      nil
    }

    func forEachEntry(
      limits: ArchiveLimits, wantsData: (String) -> Bool,
      _ body: (ArchiveEntry) throws(MergeError) -> Void
    ) throws(MergeError) {
      for path in images.keys.sorted() {
        let bytes = wantsData(path) ? images[path]! : []
        try body(ArchiveEntry(path: path, kind: .regularFile, bytes: bytes))
      }
    }

    func manifestMayFollowImages() -> Bool { false }

    static func == (lhs: MemoryStore, rhs: MemoryStore) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
  }

  /// An empty package to merge into.
  private func package() throws -> URL {
    let package = try makeTemporaryFolder(self).appendingPathComponent("package")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    return package
  }

  private func png(_ color: RGBAColor) throws -> [UInt8] {
    try PNGEncoder().encode(try RGBAImage(width: 3, height: 2, color: color))
  }

  func testANewKind_isPlannedBesideAZip_withItsOwnCompletenessStatement() throws {
    let root = try makeTemporaryFolder(self)
    let zip = root.appendingPathComponent("run.zip")
    try ZipWriter().write(
      [.init(path: "Tests/A/__References__/T/zip.png", contents: .bytes(try png(.red)))], to: zip)
    let store = MergeSource(
      MemoryStore(
        name: "one",
        images: [
          "Tests/A/__References__/T/store.png": try png(RGBAColor(red: 0, green: 0, blue: 255))
        ]))
    let sources = try MergeSource.expand(zip.path) + [store]

    let plan = MergePlanner(options: MergeOptions()).plan(
      sources: sources, destination: try package())

    let outcomes: [String: MergePlan.Outcome] = Dictionary(
      uniqueKeysWithValues: plan.items.map { ($0.path, $0.outcome) })
    XCTAssertEqual(
      outcomes,
      ["Tests/A/__References__/T/zip.png": .added, "Tests/A/__References__/T/store.png": .added])
    XCTAssertEqual(
      plan.incompleteSources.map(\.source.description), [zip.path, "store://one"])
    XCTAssertEqual(
      plan.incompleteSources.last?.incompleteReason, "a store lists renders, not runs")
    XCTAssertEqual(sources[1], store)
    XCTAssertNotEqual(sources[0], store)
  }

  func testTwoStoresThatDisagree_areAConflictNamingBoth() throws {
    let path = "Tests/A/__References__/T/chart.png"
    let sources = [
      MergeSource(MemoryStore(name: "one", images: [path: try png(.red)])),
      MergeSource(
        MemoryStore(name: "two", images: [path: try png(RGBAColor(red: 0, green: 255, blue: 0))])),
    ]
    let plan = MergePlanner(options: MergeOptions()).plan(
      sources: sources, destination: try package())
    let item = try XCTUnwrap(plan.items.first)
    XCTAssertEqual(item.outcome, .conflict)
    let candidates = [item.chosen].compactMap { $0 } + item.rivals
    XCTAssertEqual(Set(candidates.map { $0.sourceIndex }), [0, 1])
  }

  /// Every kind the command line opens is one of `MergeSource.kinds`, asked in order.
  func testTheCommandLineKinds_areTheArchiveFolderRecordAndImports() {
    XCTAssertEqual(
      MergeSource.kinds.map { String(describing: $0) },
      [
        "ResultBundleSource", "AttachmentExportSource", "SwiftTestingAttachmentsSource",
        "SnapshotTreeSource", "StagingFolder", "RunRecordFile", "ArchiveFile",
      ])
  }
}
