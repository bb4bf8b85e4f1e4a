import Foundation
import ReferenceArchive

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file written front to back through a 64 KiB buffer, so a report or a JSON summary of any
/// size is written as it is made instead of being built in memory first.
///
/// Writes never throw: the first failure is kept, later writes are dropped, and `finish()`
/// throws it, so the code that produces the text stays a plain sequence of writes.
package final class BufferedOutput {
  private let descriptor: Int32
  private let ownsDescriptor: Bool
  private let path: String
  private var buffer: [UInt8] = []
  private var failure: ArchiveError?
  private static let capacity = 1 << 16

  /// Creates (or truncates) a file.
  /// - Throws: `ArchiveError.io` naming the file.
  package init(creating url: URL) throws(ArchiveError) {
    descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw .io(operation: "create", path: url.path, message: String(cString: strerror(errno)))
    }
    ownsDescriptor = true
    path = url.path
    buffer.reserveCapacity(Self.capacity)
  }

  /// Writes to an open descriptor, such as standard output, which it does not close.
  package init(descriptor: Int32, name: String) {
    self.descriptor = descriptor
    ownsDescriptor = false
    path = name
    buffer.reserveCapacity(Self.capacity)
  }

  /// Collects the text in memory (`collected`), for callers that want a string.
  package init() {
    descriptor = -1
    ownsDescriptor = false
    path = "memory"
  }

  /// What an in-memory output holds after `finish()`.
  package private(set) var collected: [UInt8] = []

  deinit {
    if ownsDescriptor { close(descriptor) }
  }

  /// Appends text as UTF-8.
  package func write(_ text: String) {
    var text = text
    text.withUTF8 { append($0) }
  }

  /// Appends bytes.
  package func write(_ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { append($0) }
  }

  /// Appends bytes as base64, in pieces, so a large image never becomes one large string.
  package func writeBase64(_ bytes: [UInt8]) {
    let piece = 3 * 16_384
    var start = 0
    while start < bytes.count {
      let end = min(start + piece, bytes.count)
      write(Data(bytes[start..<end]).base64EncodedString())
      start = end
    }
  }

  private func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    if buffer.count + bytes.count > Self.capacity { flush() }
    if bytes.count >= Self.capacity {
      writeOut(UnsafeRawBufferPointer(bytes))
    } else {
      buffer.append(contentsOf: bytes)
    }
  }

  /// Writes out what the buffer holds.
  package func flush() {
    buffer.withUnsafeBytes { writeOut($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  private func writeOut(_ bytes: UnsafeRawBufferPointer) {
    guard failure == nil else { return }
    guard descriptor >= 0 else {
      collected.append(contentsOf: bytes)
      return
    }
    let code = FileSystem.writeAll(bytes) { Foundation.write(descriptor, $0.baseAddress, $0.count) }
    if let code {
      failure = .io(operation: "write", path: path, message: String(cString: strerror(code)))
    }
  }

  /// Flushes and reports the first failure of any write.
  /// - Throws: `ArchiveError.io` naming the file.
  package func finish() throws(ArchiveError) {
    flush()
    if let failure { throw failure }
  }
}
