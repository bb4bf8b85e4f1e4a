import Dispatch
import Foundation
import ReferenceImageCore
import XCTest

@testable import ReferenceImageTesting

final class ImageCoordinatorConcurrencyTests: XCTestCase {
  private let threads = Constants.threads
  private let imagesPerThread = Constants.imagesPerThread

  private enum Constants {
    static let threads = 12
    static let imagesPerThread = 50
  }

  func testStore_manyThreads_everyImageExactlyOnceAndByteIdenticalToSerialEncode() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self)
    let coordinator = makeCoordinator(output: output)
    let (threads, imagesPerThread) = (self.threads, self.imagesPerThread)
    let locations = try (0..<threads * imagesPerThread).map {
      try package.location("thread-\($0 / imagesPerThread)/image-\($0 % imagesPerThread)")
    }
    let failures = LockedList<String>()
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for index in 0..<imagesPerThread {
        let seed = thread * imagesPerThread + index
        do {
          try coordinator.store(
            try sampleImage(seed: seed), at: locations[seed], test: "Thread\(thread).test")
        } catch {
          failures.append("\(seed): \(error)")
        }
      }
    }
    XCTAssertEqual(failures.all, [])
    try assertArchive(coordinator.finishRun(), holds: locations, in: output)
  }

  func testStore_manyTasks_everyImageExactlyOnceAndByteIdenticalToSerialEncode() async throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self)
    let coordinator = makeCoordinator(output: output)
    let (threads, imagesPerTask) = (self.threads, self.imagesPerThread)
    let locations = try (0..<threads * imagesPerTask).map {
      try package.location("task-\($0 / imagesPerTask)/image-\($0 % imagesPerTask)")
    }
    let failures = await withTaskGroup(of: [String].self) { group in
      for task in 0..<threads {
        group.addTask {
          var failures: [String] = []
          for index in 0..<imagesPerTask {
            let seed = task * imagesPerTask + index
            do {
              try coordinator.store(
                try sampleImage(seed: seed), at: locations[seed], test: "Suite/task\(task)()")
            } catch {
              failures.append("\(seed): \(error)")
            }
          }
          return failures
        }
      }
      return await group.reduce(into: []) { $0 += $1 }
    }
    XCTAssertEqual(failures, [])
    try assertArchive(coordinator.finishRun(), holds: locations, in: output)
  }

  func testStore_duplicatesUnderConcurrency_reportedExactlyOncePerPair() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self)
    let coordinator = makeCoordinator(output: output)
    let (threads, imagesPerThread) = (self.threads, self.imagesPerThread)
    // Every path is stored by exactly two threads: thread t and thread t ^ 1 share paths.
    let pathCount = threads / 2 * imagesPerThread
    let locations = try (0..<pathCount).map { try package.location("shared/\($0)") }
    let duplicates = LockedList<ReferenceImageError>()
    let others = LockedList<String>()
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for index in 0..<imagesPerThread {
        let path = thread / 2 * imagesPerThread + index
        do {
          try coordinator.store(
            try sampleImage(seed: path), at: locations[path], test: "Thread\(thread)")
        } catch let error as ReferenceImageError {
          if case .duplicateImage = error {
            duplicates.append(error)
          } else {
            others.append("\(error)")
          }
        } catch {
          others.append("\(error)")
        }
      }
    }
    XCTAssertEqual(others.all, [])
    var reportedPaths: [String: Int] = [:]
    for case .duplicateImage(let path, let first, let second) in duplicates.all {
      reportedPaths[path, default: 0] += 1
      XCTAssertNotEqual(first, second, path)
      let pair = Set([first, second])
      let index = try XCTUnwrap(Int(path.split(separator: "/").last!.dropLast(4)))
      let thread = index / imagesPerThread * 2
      XCTAssertEqual(pair, ["Thread\(thread)", "Thread\(thread + 1)"], path)
    }
    XCTAssertEqual(reportedPaths.count, pathCount)
    XCTAssertTrue(reportedPaths.values.allSatisfy { $0 == 1 })
    try assertArchive(coordinator.finishRun(), holds: locations, in: output)
  }

  /// `finishRun` while other threads still store: every store either throws "already written"
  /// or lands in the archive; none is accepted and then lost, and no staging folder is left.
  func testFinishRun_whileOtherThreadsStore_everyAcceptedImageIsInTheArchive() throws {
    let package = try TemporaryPackage(self)
    let output = try makeTemporaryFolder(self)
    let coordinator = makeCoordinator(output: output)
    let (threads, imagesPerThread) = (self.threads, self.imagesPerThread)
    let locations = try (0..<threads * imagesPerThread).map {
      try package.location("race-\($0 / imagesPerThread)/image-\($0 % imagesPerThread)")
    }
    let accepted = LockedList<String>()
    let refused = LockedList<String>()
    let others = LockedList<String>()
    let archive = LockedList<URL?>()
    DispatchQueue.concurrentPerform(iterations: threads + 1) { thread in
      guard thread < threads else {
        // Finish once a quarter of the images were accepted, with stores still queued.
        while accepted.all.count < locations.count / 4 { sched_yield() }
        archive.append(coordinator.finishRun())
        return
      }
      for index in 0..<imagesPerThread {
        let seed = thread * imagesPerThread + index
        do {
          try coordinator.store(
            try sampleImage(seed: seed, width: 64, height: 48), at: locations[seed],
            test: "T\(thread)")
          accepted.append(locations[seed].relativePath)
        } catch ReferenceImageError.writeFailed(_, let reason)
          where reason.contains("already written")
        {
          refused.append(locations[seed].relativePath)
        } catch {
          others.append("\(error)")
        }
      }
    }
    XCTAssertEqual(others.all, [])
    XCTAssertEqual(accepted.all.count + refused.all.count, locations.count)
    let written = try XCTUnwrap(archive.all.first ?? nil)
    let archived = try ArchiveContents(written)
    XCTAssertEqual(Set(archived.files.keys), Set(accepted.all))
    XCTAssertEqual(Set(archived.manifest?.images.map(\.path) ?? []), Set(accepted.all))
    XCTAssertEqual(contents(of: output), [written.lastPathComponent], "staging folder left over")
  }

  /// The archive holds each location exactly once, with the bytes a serial encode of its seed
  /// image gives, and a manifest whose hashes match.
  private func assertArchive(
    _ archive: URL?, holds locations: [ReferenceLocation], in output: URL,
    file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let archive = try XCTUnwrap(archive, "no archive written", file: file, line: line)
    XCTAssertEqual(archives(in: output), [archive], file: file, line: line)
    let contents = try ArchiveContents(archive)
    let manifest = try XCTUnwrap(contents.manifest, file: file, line: line)
    XCTAssertEqual(manifest.completion, .finished, file: file, line: line)
    XCTAssertEqual(manifest.images.count, locations.count, file: file, line: line)
    XCTAssertEqual(contents.files.count, locations.count, file: file, line: line)
    XCTAssertEqual(
      contents.entryCounts.filter { $0.value != 1 }, [:], "entries written more than once",
      file: file, line: line)
    let records = Dictionary(manifest.images.map { ($0.path, $0) }) { first, _ in first }
    for (seed, location) in locations.enumerated() {
      let path = location.relativePath
      let expected = try PNGEncoder().encode(try sampleImage(seed: seed))
      guard let png = contents.files[path], let record = records[path] else {
        XCTFail("\(path) missing from the archive", file: file, line: line)
        continue
      }
      XCTAssertEqual(png, expected, "\(path) differs from a serial encode", file: file, line: line)
      XCTAssertEqual(record.pngSHA256.hex, SHA256.hex(png), path, file: file, line: line)
    }
  }
}
