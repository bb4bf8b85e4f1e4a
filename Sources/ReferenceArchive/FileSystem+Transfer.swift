import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs a system call again for as long as a signal interrupts it before it did anything
/// (`EINTR`): the one place that retries, as swift-system's `retryOnInterrupt` does.
/// - Parameter call: Returns what the C call returns, and sets `errno` when that is negative.
/// - Returns: The first result that is not an interruption.
package func retryOnInterrupt<Result: SignedInteger>(_ call: () -> Result) -> Result {
  while true {
    let result = call()
    guard result < 0 && errno == EINTR else { return result }
  }
}

extension FileSystem {
  /// Writes every byte through a `write(2)`-like call, retrying interrupted and short writes.
  /// - Parameters:
  ///   - bytes: What to write.
  ///   - write: Writes some of the bytes it is given; returns how many, or -1 and sets `errno`.
  /// - Returns: nil on success, else the `errno` of the failure (`ENOSPC` when nothing more
  ///   could be written).
  package static func writeAll(
    _ bytes: UnsafeRawBufferPointer, with write: (UnsafeRawBufferPointer) -> Int
  ) -> Int32? {
    var offset = 0
    while offset < bytes.count {
      let written = retryOnInterrupt { write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
      guard written > 0 else { return written < 0 ? errno : ENOSPC }
      offset += written
    }
    return nil
  }

  /// Fills a buffer through a `read(2)`-like call, retrying interrupted and short reads, until
  /// it is full or the file ends.
  /// - Parameters:
  ///   - buffer: Where the bytes go.
  ///   - read: Reads into the rest of the buffer, given how many bytes came before it; returns
  ///     how many it read (0 at the end of the file), or -1 and sets `errno`.
  /// - Returns: How many bytes were read, and the `errno` of a failed read (nil when none).
  package static func readAll(
    into buffer: UnsafeMutableRawBufferPointer,
    with read: (_ rest: UnsafeMutableRawBufferPointer, _ done: Int) -> Int
  ) -> (count: Int, failure: Int32?) {
    var done = 0
    while done < buffer.count {
      let count = retryOnInterrupt {
        read(UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), done)
      }
      if count < 0 { return (done, errno) }
      if count == 0 { break }
      done += count
    }
    return (done, nil)
  }
}
