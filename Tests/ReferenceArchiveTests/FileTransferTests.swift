import Foundation
import ReferenceArchive
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one retry of interrupted calls, and the whole-buffer reads and writes built on it.
final class FileTransferTests: XCTestCase {
  func testWriteAll_interruptedAndShortWrites_writesEveryByteOnce() {
    let bytes: [UInt8] = Array(0..<10)
    var written: [UInt8] = []
    var calls = 0
    let failure = bytes.withUnsafeBytes { buffer in
      FileSystem.writeAll(buffer) { rest in
        calls += 1
        // Every other call is interrupted; the others write at most three bytes.
        if calls % 2 == 1 {
          errno = EINTR
          return -1
        }
        let count = min(3, rest.count)
        written += rest.prefix(count)
        return count
      }
    }
    XCTAssertNil(failure)
    XCTAssertEqual(written, bytes)
  }

  func testWriteAll_failureOrNoProgress_returnsTheErrno() {
    let failure = [UInt8](repeating: 1, count: 4).withUnsafeBytes { buffer in
      FileSystem.writeAll(buffer) { _ in
        errno = EIO
        return -1
      }
    }
    XCTAssertEqual(failure, EIO)
    let stuck = [UInt8](repeating: 1, count: 4).withUnsafeBytes { buffer in
      FileSystem.writeAll(buffer) { _ in 0 }
    }
    XCTAssertEqual(stuck, ENOSPC)
  }

  func testReadAll_interruptedShortReadsThenEndOfFile_returnsWhatWasRead() {
    let source: [UInt8] = Array(0..<7)
    var buffer = [UInt8](repeating: 0, count: 10)
    var interrupted = false
    let result = buffer.withUnsafeMutableBytes { buffer in
      FileSystem.readAll(into: buffer) { rest, done in
        if !interrupted {
          interrupted = true
          errno = EINTR
          return -1
        }
        let count = min(2, rest.count, source.count - done)
        rest.copyBytes(from: source[done..<(done + count)])
        return count
      }
    }
    XCTAssertEqual(result.count, 7)
    XCTAssertNil(result.failure)
    XCTAssertEqual(Array(buffer.prefix(7)), source)
  }

  func testReadAll_failedRead_returnsTheErrnoAndTheCountSoFar() {
    var buffer = [UInt8](repeating: 0, count: 4)
    var calls = 0
    let result = buffer.withUnsafeMutableBytes { buffer in
      FileSystem.readAll(into: buffer) { rest, _ in
        calls += 1
        guard calls == 1 else {
          errno = EIO
          return -1
        }
        rest[0] = 9
        return 1
      }
    }
    XCTAssertEqual(result.count, 1)
    XCTAssertEqual(result.failure, EIO)
  }
}
