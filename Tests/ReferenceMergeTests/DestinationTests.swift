import Foundation
import ReferenceArchive
import ReferenceImageCore
import XCTest

@testable import ReferenceMerge

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one owner of the destination, in-process: resolution through folder handles, atomic
/// writes, a folder swapped for a symbolic link while a merge runs, and a full disk played
/// through the `FileCalls` seam.
final class DestinationTests: XCTestCase {
  private var merge: MergeScenario!
  private var root: URL { merge.root }
  private var package: URL { merge.destination }
  private var outside: URL!
  private let folder = "Tests/RaceTests/__References__"

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: folder)
    outside = root.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
  }

  /// A run's archive of `count` images, `image0` to `image<count - 1>`, their seeds counted
  /// from `seed`.
  private func run(of count: Int, seed: Int = 0, name: String = "run.zip") throws -> URL {
    try merge.archive(name) {
      for index in 0..<count {
        try $0.add(self.merge.path("image\(index)"), try noiseImage(seed: seed + index))
      }
    }
  }

  private func session(calls: FileCalls = .system, writesNothing: Bool = false) -> MergeSession {
    var session = MergeSession(
      options: MergeOptions(), destination: package, writesNothing: writesNothing)
    session.fileCalls = calls
    return session
  }

  /// The system's calls, counting the files opened by name.
  private func countingOpens(_ opened: NameCounts) -> FileCalls {
    var calls = FileCalls.system
    let openAt = calls.openAt
    calls.openAt = { folder, name, flags in
      opened.add(name)
      return openAt(folder, name, flags)
    }
    return calls
  }

  // MARK: Resolving and writing

  func testWrite_missingFolders_createdAndFileLandsAtomically() throws {
    let destination = try Destination(root: package)

    try destination.write([1, 2, 3], to: "a/b/c.png", digest: SHA256.hex([1, 2, 3]))

    XCTAssertEqual(
      try snapshot(package),
      ["a": .folder, "a/b": .folder, "a/b/c.png": .file([1, 2, 3])])
    XCTAssertEqual(destination.read("a/b/c.png")?.bytes, [1, 2, 3])
    XCTAssertEqual(destination.pngSHA256("a/b/c.png"), SHA256.hex([1, 2, 3]))
  }

  func testCheckWritable_linkOnTheWay_refusedNamingTheLink() throws {
    try FileManager.default.createDirectory(
      at: package.appendingPathComponent("Tests"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      at: package.appendingPathComponent("Tests/RaceTests"), withDestinationURL: outside)
    let destination = try Destination(root: package)

    XCTAssertThrowsError(try destination.checkWritable("\(folder)/a.png")) { error in
      XCTAssertTrue(
        "\(error)".contains(
          "\(package.path)/Tests/RaceTests is a symbolic link; merge-refs does not write through"),
        "\(error)")
    }
    XCTAssertThrowsError(try destination.write([1], to: "\(folder)/a.png", digest: ""))
    XCTAssertEqual(try snapshot(outside), [:])
  }

  func testMerge_nameStartingWithACombiningMark_throughALink_nothingWrittenOutside() throws {
    // "/" and a combining accent make one `Character`: a path split by Characters took
    // `RaceTests/\u{301}a.png` for a name in `Tests`, and the kernel followed the link.
    try FileManager.default.createDirectory(
      at: package.appendingPathComponent("Tests"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      at: package.appendingPathComponent("Tests/RaceTests"), withDestinationURL: outside)
    let path = "Tests/RaceTests/\u{301}a.png"
    let source = try merge.archive("run.zip") { try $0.add(path, try noiseImage(seed: 1)) }

    for writesNothing in [true, false] {
      let outcome = session(writesNothing: writesNothing).run(sourcePaths: [source.path])

      XCTAssertNotEqual(outcome.status, .success, outcome.summary.text())
      XCTAssertTrue(
        outcome.summary.text().contains("Tests/RaceTests is a symbolic link"),
        outcome.summary.text())
    }
    let destination = try Destination(root: package)
    XCTAssertThrowsError(try destination.write([1], to: path, digest: ""))
    XCTAssertThrowsError(try destination.checkWritable(path))
    XCTAssertEqual(try snapshot(outside), [:])
    XCTAssertEqual(Destination.split(path).folder, "Tests/RaceTests")
    XCTAssertEqual(Array(Destination.split(path).name.utf8), Array("\u{301}a.png".utf8))
  }

  func testRead_finalLink_isNotFollowed() throws {
    try writeFile([9, 9], to: outside.appendingPathComponent("secret.png"))
    try FileManager.default.createSymbolicLink(
      at: package.appendingPathComponent("a.png"),
      withDestinationURL: outside.appendingPathComponent("secret.png"))
    let destination = try Destination(root: package)

    XCTAssertNil(destination.read("a.png"))
    XCTAssertThrowsError(try destination.checkWritable("a.png"))
  }

  // MARK: A racing symbolic link

  /// A folder swapped for a link at the worst moment, deterministically: just before the
  /// destination opens it. The seam does the swap, so the test does not depend on timing.
  func testMerge_folderSwappedForLinkJustBeforeItIsOpened_nothingWrittenOutside() throws {
    let source = try run(of: 5)
    let reference = package.appendingPathComponent(folder)
    try FileManager.default.createDirectory(at: reference, withIntermediateDirectories: true)
    let swapped = SwapOnce(folder: reference, link: outside)
    var calls = FileCalls.system
    let open = calls.openAt
    let beneath = calls.openBeneath
    calls.openAt = { folder, name, flags in
      if name == "__References__" || name.hasSuffix("/__References__") { swapped.swap() }
      return open(folder, name, flags)
    }
    calls.openBeneath = { root, path, flags in
      if path.hasSuffix("__References__") { swapped.swap() }
      return beneath(root, path, flags)
    }

    let outcome = session(calls: calls).run(sourcePaths: [source.path])

    XCTAssertTrue(swapped.didSwap)
    XCTAssertEqual(try snapshot(outside), [:], "written outside: \(outcome.summary.text())")
    XCTAssertNotEqual(outcome.status, .success, outcome.summary.text())
  }

  /// A reference folder swapped for a link to an outside folder, and back, by another thread
  /// while merges run, many times: nothing is ever written outside the package.
  func testMerge_folderSwappedForLinkWhileMerging_neverWritesOutside() throws {
    let reference = package.appendingPathComponent(folder)
    let moved = package.appendingPathComponent("Tests/RaceTests/moved")
    let sources = try (0..<3).map { try run(of: 40, seed: $0 * 100, name: "run\($0).zip") }
    var outcomes: [Int32: Int] = [:]
    var swapsDuringMerges = 0
    for trial in 0..<30 {
      try? FileManager.default.removeItem(at: package.appendingPathComponent("Tests"))
      try FileManager.default.createDirectory(at: reference, withIntermediateDirectories: true)
      let stop = Flag()
      let outsidePath = outside.path
      let swapper = Thread {
        while !stop.isSet {
          // rename(2) and symlink(2) directly: the window between them is the race.
          rename(reference.path, moved.path)
          symlink(outsidePath, reference.path)
          usleep(UInt32(trial % 5) * 50)
          unlink(reference.path)
          rename(moved.path, reference.path)
          stop.countSwap()
        }
        stop.finish()
      }
      swapper.start()
      // The merge starts once the folder is being swapped, so each trial really races.
      stop.waitForSwaps(1)
      let before = stop.swaps
      let outcome = session().run(sourcePaths: [sources[trial % 3].path])
      swapsDuringMerges += stop.swaps - before
      stop.set()
      stop.waitUntilFinished()
      outcomes[outcome.exitCode, default: 0] += 1
      XCTAssertEqual(
        try snapshot(outside), [:], "trial \(trial) wrote outside: \(outcome.summary.text())")
      if !(try snapshot(outside)).isEmpty { break }
    }
    // Both kinds of outcome are fine (a refused link, or every file inside); only writing
    // outside is not. The race really ran: the folder was swapped while merges were running.
    XCTAssertGreaterThan(swapsDuringMerges, 0, "outcomes by exit code: \(outcomes)")
    print("outcomes by exit code over 30 trials: \(outcomes), \(swapsDuringMerges) swaps")
  }

  // MARK: A full disk

  func testMerge_diskFullMidWay_exitsOneKeepsReferencesAndRerunConverges() throws {
    let existing = try PNGEncoder(setting: .fast).encode(try noiseImage(seed: 999))
    // A reference the merge does not touch, and one it updates.
    try writeFile(existing, to: package.appendingPathComponent("\(folder)/kept.png"))
    try writeFile(existing, to: package.appendingPathComponent("\(folder)/image7.png"))
    let source = try run(of: 8)
    var calls = FileCalls.system
    let write = calls.write
    let budget = Budget(writes: 5)
    calls.write = { handle, buffer in
      guard budget.take() else {
        errno = ENOSPC
        return -1
      }
      return write(handle, buffer)
    }

    let full = session(calls: calls).run(sourcePaths: [source.path])

    XCTAssertEqual(full.status, .writeFailed, full.summary.text())
    XCTAssertTrue(
      full.summary.errors.contains {
        $0.contains(": no space left on device (") && $0.contains("free space on the device")
      },
      full.summary.text())
    let tree = try snapshot(package)
    // The summary counts what is on disk, not what the plan meant to write.
    let landed = (0..<8).filter {
      tree["\(folder)/image\($0).png"] != nil && tree["\(folder)/image\($0).png"] != .file(existing)
    }
    XCTAssertEqual(full.summary.added + full.summary.updated, landed.count, full.summary.text())
    XCTAssertEqual(full.summary.notWritten, 8 - landed.count, full.summary.text())
    XCTAssertEqual(tree["\(folder)/kept.png"], .file(existing), "an untouched reference changed")
    XCTAssertEqual(tree["\(folder)/image7.png"], .file(existing), "written after the disk filled")
    XCTAssertFalse(
      tree.keys.contains { $0.contains(FileSystem.temporaryPrefix) },
      "temporary files left: \(tree.keys.sorted())")

    let rerun = session().run(sourcePaths: [source.path])

    XCTAssertEqual(rerun.status, .success, rerun.summary.text())
    let again = session().run(sourcePaths: [source.path])
    XCTAssertEqual(again.summary.unchanged, 8, again.summary.text())
    XCTAssertEqual(try snapshot(package)["\(folder)/kept.png"], .file(existing))
  }
}

// MARK: An unwritable reference folder

extension DestinationTests {
  /// A reference folder holding one reference the archive updates; the archive also adds two.
  private func referencesAndArchive() throws -> (source: URL, before: [String: TreeNode]) {
    let existing = try PNGEncoder(setting: .fast).encode(try noiseImage(seed: 500))
    try writeFile(existing, to: package.appendingPathComponent("\(folder)/image0.png"))
    let source = try run(of: 3)
    return (source, try snapshot(package))
  }

  /// Lands `source`'s `count` images (`image0`…) in a built package, then merges it again once
  /// they are older than the cache file to come, so the cache vouches for each from then on
  /// (git's racy rule).
  private func landCached(_ source: URL, count: Int) throws {
    try FileManager.default.createDirectory(
      at: package.appendingPathComponent(".build"), withIntermediateDirectories: true)
    XCTAssertEqual(session().run(sourcePaths: [source.path]).status, .success)
    for index in 0..<count {
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)],
        ofItemAtPath: package.appendingPathComponent("\(folder)/image\(index).png").path)
    }
    XCTAssertEqual(session().run(sourcePaths: [source.path]).status, .success)
  }

  func testRerun_upToDateBuiltPackage_asksEachReferenceOnceAndReadsNone() throws {
    let source = try run(of: 4)
    try landCached(source, count: 4)
    let asked = NameCounts()
    var calls = FileCalls.system
    let (statAt, openAt) = (calls.statAt, calls.openAt)
    calls.statAt = { folder, name in
      asked.add("stat \(name)")
      return statAt(folder, name)
    }
    calls.openAt = { folder, name, flags in
      asked.add("open \(name)")
      return openAt(folder, name, flags)
    }

    let outcome = session(calls: calls).run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.summary.unchanged, 4, outcome.summary.text())
    // The digest cache answers each reference from one status; the plan does not ask again.
    for index in 0..<4 {
      XCTAssertEqual(asked.count("stat image\(index).png"), 1, asked.description)
      XCTAssertEqual(asked.count("open image\(index).png"), 0, asked.description)
    }
  }

  func testRerun_sourceWithoutManifest_readsNoReference() throws {
    // An archive of an older version: no record vouches for its entries, so each is read and
    // the destination asked while reading; the plan, after the digest cache is let go, must
    // not read the reference to ask again.
    let source = try merge.archive("old.zip") { builder in
      for index in 0..<4 {
        try builder.add(self.merge.path("image\(index)"), try noiseImage(seed: index))
      }
      builder.includesManifest = false
    }
    try landCached(source, count: 4)
    let opened = NameCounts()
    let calls = countingOpens(opened)

    let outcome = session(calls: calls).run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.summary.unchanged, 4, outcome.summary.text())
    for index in 0..<4 {
      XCTAssertEqual(opened.count("image\(index).png"), 0, "image\(index): \(opened)")
    }
  }

  func testUpdate_referenceTouchedSinceTheCache_readOnceToHashAndOnceForItsPixels() throws {
    // The cache cannot vouch for a file changed since it was written: reading the source hashes
    // it once, and the planner reads it once more for its pixels, never a third time.
    try FileManager.default.createDirectory(
      at: package.appendingPathComponent(".build"), withIntermediateDirectories: true)
    XCTAssertEqual(session().run(sourcePaths: [try run(of: 2).path]).status, .success)
    let touched = package.appendingPathComponent("\(folder)/image0.png")
    try Data(try PNGEncoder().encode(try noiseImage(seed: 70))).write(to: touched)
    let source = try run(of: 2, seed: 80, name: "new.zip")
    let opened = NameCounts()
    let calls = countingOpens(opened)

    let outcome = session(calls: calls, writesNothing: true).run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.summary.updated, 2, outcome.summary.text())
    XCTAssertEqual(opened.count("image0.png"), 2, "\(opened)")
    XCTAssertEqual(opened.count("image1.png"), 1, "the cache vouches for it: \(opened)")
  }

  func testUpdate_builtPackage_neverHashesAReferenceTheCacheAnswered() throws {
    // Six references cached; then a run that renders two of them anew, archives two as they
    // are, and records two unchanged. The digest cache is let go once the run is read.
    try landCached(try run(of: 6), count: 6)
    let references = try (0..<6).map {
      Array(try Data(contentsOf: package.appendingPathComponent("\(folder)/image\($0).png")))
    }
    let source = try merge.archive("update.zip") { builder in
      for index in 0..<4 {
        try builder.add(
          self.merge.path("image\(index)"), try noiseImage(seed: index < 2 ? 50 + index : index))
      }
      // The second recorded with other bytes of the same pixels: decided by decoding.
      for index in 4..<6 {
        builder.addUnchanged(
          self.merge.path("image\(index)"), try noiseImage(seed: index),
          reference: index == 4 ? references[index] : Array("other bytes".utf8))
      }
    }
    let opened = NameCounts()
    let calls = countingOpens(opened)

    let outcome = session(calls: calls, writesNothing: true).run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.summary.updated, 2, outcome.summary.text())
    XCTAssertEqual(outcome.summary.unchanged, 4, outcome.summary.text())
    // An update keeps the pixels it replaces (approvals and the review's "before"), in one
    // small object beside a 16-byte item.
    let items = try XCTUnwrap(outcome.plan).items
    for index in 0..<2 {
      let item = try XCTUnwrap(items.first { $0.path == merge.path("image\(index)") })
      XCTAssertEqual(item.before, SHA256Digest(of: try noiseImage(seed: index).pixels))
      XCTAssertEqual(item.after, SHA256Digest(of: try noiseImage(seed: 50 + index).pixels))
    }
    XCTAssertEqual(MemoryLayout<MergePlan.Item>.stride, 16)
    for index in 0..<6 {
      XCTAssertEqual(
        opened.count("image\(index).png"), [1, 1, 0, 0, 0, 1][index],
        "image\(index): read only for its pixels, never hashed again: \(opened)")
    }
  }

  func testMerge_permissionDeniedMovingIntoPlace_namesTheReferenceCauseAndFix() throws {
    let (source, before) = try referencesAndArchive()

    let outcome = session(calls: .failingRenames(EACCES)).run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.status, .writeFailed, outcome.summary.text())
    let error = try XCTUnwrap(outcome.summary.errors.first, outcome.summary.text())
    // The staged entry's name ("1") is the merge's own: the reference is named instead.
    XCTAssertTrue(
      error.hasPrefix("could not write \(folder)/image"), "names the reference: \(error)")
    XCTAssertTrue(error.contains(" in \(package.path): permission denied ("), error)
    XCTAssertTrue(error.contains("make \(folder) writable (`chmod u+rwx \(folder)`"), error)
    XCTAssertFalse(error.contains("rerun the same command"), "rerunning cannot help: \(error)")
    XCTAssertFalse(error.contains("into place: "), error)
    XCTAssertEqual(outcome.summary.added, 0, outcome.summary.text())
    XCTAssertEqual(outcome.summary.updated, 0, outcome.summary.text())
    XCTAssertEqual(outcome.summary.notWritten, 3, outcome.summary.text())
    XCTAssertTrue(
      outcome.summary.summaryLine.hasSuffix(", 3 not written (nothing written)"),
      outcome.summary.summaryLine)
    XCTAssertFalse(outcome.summary.text().contains("\nadded:"), outcome.summary.text())
    assertTreesEqual(try snapshot(package), before, "nothing may change")
  }

  func testMerge_readOnlyFileSystem_namesTheCauseAndWritesNothing() throws {
    let (source, before) = try referencesAndArchive()
    var calls = FileCalls.system
    let open = calls.openAt
    calls.openAt = { folder, name, flags in
      guard flags & O_CREAT == 0 else {
        errno = EROFS
        return -1
      }
      return open(folder, name, flags)
    }
    calls.makeFolderAt = { _, _ in
      errno = EROFS
      return -1
    }
    calls.renameAt = { _, _, _, _ in
      errno = EROFS
      return -1
    }

    let outcome = session(calls: calls).run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.status, .writeFailed, outcome.summary.text())
    let error = try XCTUnwrap(outcome.summary.errors.first, outcome.summary.text())
    XCTAssertTrue(error.hasPrefix("could not write \(folder)/image"), error)
    XCTAssertTrue(error.contains(": read-only file system (creating the new file)"), error)
    XCTAssertTrue(error.contains("\(package.path) is on a file system mounted read-only"), error)
    XCTAssertTrue(error.hasSuffix("Nothing is lost: every reference not written is as it was"))
    XCTAssertFalse(error.contains("rerun the same command"), error)
    XCTAssertEqual(outcome.summary.added + outcome.summary.updated, 0, outcome.summary.text())
    XCTAssertFalse(outcome.summary.applied)
    assertTreesEqual(try snapshot(package), before, "nothing may change")
  }

  func testMerge_writeFailsAfterOneFile_summaryCountsOnlyTheFileWritten() throws {
    let (source, before) = try referencesAndArchive()

    let outcome = session(calls: .failingRenames(EACCES, after: 1)).run(sourcePaths: [source.path])

    XCTAssertEqual(outcome.status, .writeFailed, outcome.summary.text())
    let after = try snapshot(package)
    let changed = Set(after.keys).union(before.keys).filter { after[$0] != before[$0] }
    XCTAssertEqual(changed.count, 1, "one rename succeeded: \(changed.sorted())")
    XCTAssertEqual(outcome.summary.added + outcome.summary.updated, 1, outcome.summary.text())
    XCTAssertEqual(outcome.summary.notWritten, 2, outcome.summary.text())
    XCTAssertTrue(
      outcome.summary.summaryLine.hasSuffix(", 2 not written (stopped by a failed write)"),
      outcome.summary.summaryLine)
    let listed = outcome.summary.changes.filter { $0.notWritten != true }.map(\.path)
    XCTAssertEqual(listed, changed.sorted(), "only the file written is listed as landed")
  }
}

/// Swaps a folder for a symbolic link, once.
private final class SwapOnce: @unchecked Sendable {
  let folder: URL
  let link: URL
  private let lock = NSLock()
  private(set) var didSwap = false

  init(folder: URL, link: URL) {
    self.folder = folder
    self.link = link
  }

  func swap() {
    lock.lock()
    defer { lock.unlock() }
    guard !didSwap else { return }
    didSwap = true
    rename(folder.path, folder.path + "-moved")
    symlink(link.path, folder.path)
  }
}

/// A count of writes that succeed before the disk is "full".
/// A stop flag for the swapping thread, and a way to wait for it to end.
private final class Flag: @unchecked Sendable {
  private let condition = NSCondition()
  private var stopped = false
  private var finished = false
  private var swapCount = 0

  /// How many times the swapper has swapped the folder and back.
  var swaps: Int {
    condition.lock()
    defer { condition.unlock() }
    return swapCount
  }

  func countSwap() {
    condition.lock()
    swapCount += 1
    condition.broadcast()
    condition.unlock()
  }

  func waitForSwaps(_ count: Int) {
    condition.lock()
    while swapCount < count { condition.wait() }
    condition.unlock()
  }

  var isSet: Bool {
    condition.lock()
    defer { condition.unlock() }
    return stopped
  }

  func set() {
    condition.lock()
    stopped = true
    condition.unlock()
  }

  func finish() {
    condition.lock()
    finished = true
    condition.broadcast()
    condition.unlock()
  }

  func waitUntilFinished() {
    condition.lock()
    while !finished { condition.wait() }
    condition.unlock()
  }
}

/// How many times each name was asked for, from any thread.
private final class NameCounts: @unchecked Sendable, CustomStringConvertible {
  private let lock = NSLock()
  private var counts: [String: Int] = [:]

  func add(_ name: String) {
    lock.lock()
    defer { lock.unlock() }
    counts[name, default: 0] += 1
  }

  func count(_ name: String) -> Int {
    lock.lock()
    defer { lock.unlock() }
    return counts[name] ?? 0
  }

  var description: String {
    lock.lock()
    defer { lock.unlock() }
    return counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(
      separator: ", ")
  }
}
