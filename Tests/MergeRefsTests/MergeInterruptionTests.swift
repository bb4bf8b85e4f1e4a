import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// `merge-refs` killed at random moments: no reference is ever half written, and rerunning the
/// same command converges to exactly the tree an uninterrupted merge gives.
final class MergeInterruptionTests: XCTestCase {
  private let archiveCount = 20
  private let imagesPerArchive = 30
  private let trials = 15
  /// The kill loop stops starting new trials after this long (a bound, not an assertion).
  private let timeBudget: TimeInterval = 30

  private func imagePath(archive: Int, image: Int) -> String {
    "Tests/Suite\(archive % 4)/__References__/Test\(archive)/image\(image).png"
  }

  /// Twenty archives, and a destination where a third of their images are already in place,
  /// a third have old pixels and a third are missing.
  private func makeScenario(in root: URL) throws -> (sources: [String], initial: URL) {
    let initial = root.appendingPathComponent("initial")
    try writeFile(Array("// package\n".utf8), to: initial.appendingPathComponent("Package.swift"))
    var sources: [String] = []
    for archive in 0..<archiveCount {
      var builder = ArchiveBuilder(
        host: "worker-\(archive)", pid: Int32(100 + archive), generatedAt: day(archive))
      for image in 0..<imagesPerArchive {
        let path = imagePath(archive: archive, image: image)
        let pixels = try noiseImage(seed: archive * 1000 + image, width: 24, height: 24)
        let png = try builder.add(path, pixels)
        switch image % 3 {
        case 0: try writeFile(png, to: initial.appendingPathComponent(path))
        case 1:
          try writeFile(
            try PNGEncoder().encode(try changingPixels(pixels, count: 2)),
            to: initial.appendingPathComponent(path))
        default: break
        }
      }
      let url = root.appendingPathComponent("worker \(archive).zip")
      try builder.write(to: url)
      sources.append(url.path)
    }
    return (sources, initial)
  }

  private func copy(_ tree: URL, to url: URL) throws {
    try? FileManager.default.removeItem(at: url)
    try FileManager.default.copyItem(at: tree, to: url)
  }

  /// Every reference present decodes, and holds either its old bytes or its final bytes.
  private func assertNoReferenceTruncated(
    _ tree: [String: TreeNode], initial: [String: TreeNode], expected: [String: TreeNode],
    trial: Int
  ) {
    for (path, node) in tree where path.hasSuffix(".png") {
      // Temporary files, and the hidden staging folder a merge keeps its entries in until it
      // renames them into place, are not references.
      let isTemporary = path.split(separator: "/").contains {
        $0.hasPrefix(FileSystem.temporaryPrefix)
      }
      guard !isTemporary, case .file(let bytes) = node else {
        continue
      }
      XCTAssertNoThrow(try PNGDecoder().decode(bytes), "trial \(trial): \(path) does not decode")
      XCTAssertTrue(
        node == initial[path] || node == expected[path],
        "trial \(trial): \(path) is neither its old nor its new version")
    }
  }

  func testMerge_killedAtRandomMoments_rerunConvergesToTheUninterruptedResult() throws {
    let root = try makeTemporaryFolder(self)
    let (sources, initial) = try makeScenario(in: root)
    let initialTree = try snapshot(initial)

    let reference = root.appendingPathComponent("uninterrupted")
    try copy(initial, to: reference)
    let started = Date()
    let uninterrupted = try MergeRefs.run(sources + [reference.path])
    let duration = Date().timeIntervalSince(started)
    XCTAssertEqual(uninterrupted.exitStatus, .success, uninterrupted.all)
    XCTAssertTrue(
      uninterrupted.output.contains(
        "200 added, 200 updated, 200 unchanged, 0 conflicts, 0 orphans, 0 refused"),
      uninterrupted.output)
    let expected = try snapshot(reference)

    var generator = SystemRandomNumberGenerator()
    var killed = 0
    var cutMidway = 0
    let loopStarted = Date()
    for trial in 0..<trials where Date().timeIntervalSince(loopStarted) < timeBudget {
      let target = root.appendingPathComponent("trial \(trial)")
      try copy(initial, to: target)
      // Odd trials are killed twice: the second kill interrupts a rerun.
      for _ in 0...(trial % 2) {
        let delay = Double.random(in: 0...(duration * 1.2), using: &generator)
        if try MergeRefs.runAndKill(sources + [target.path], after: delay) { killed += 1 }
        let tree = try snapshot(target)
        if tree != initialTree && tree != expected { cutMidway += 1 }
        assertNoReferenceTruncated(tree, initial: initialTree, expected: expected, trial: trial)
      }

      let rerun = try MergeRefs.run(sources + [target.path])

      XCTAssertEqual(rerun.exitStatus, .success, "trial \(trial): \(rerun.all)")
      let final = try snapshot(target)
      assertTreesEqual(final, expected, "trial \(trial)")
      let leftovers = final.keys.filter {
        ($0 as NSString).lastPathComponent.hasPrefix(FileSystem.temporaryPrefix)
      }
      XCTAssertEqual(leftovers, [], "trial \(trial)")
      try FileManager.default.removeItem(at: target)
    }
    // For the log: how many kills landed while files were being written.
    print(
      "merge-refs (\(String(format: "%.2f", duration)) s uninterrupted) killed \(killed) times, "
        + "\(cutMidway) in the middle of writing")
  }
}
