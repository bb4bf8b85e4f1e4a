import Foundation

/// What a path is, without following links, and bounded reads that refuse links.
enum FileStatus: Equatable {
  case missing, regularFile, directory, symbolicLink, other

  enum ReadError: Error, CustomStringConvertible {
    case tooLarge(Int)
    case system(String)

    var description: String {
      switch self {
      case .tooLarge(let size): "\(size) bytes"
      case .system(let message): message
      }
    }
  }

  static func of(_ path: String) -> FileStatus {
    var info = stat()
    guard lstat(path, &info) == 0 else { return .missing }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .regularFile
    case S_IFDIR: return .directory
    case S_IFLNK: return .symbolicLink
    default: return .other
    }
  }

  /// The whole file, opened without following a link, when it holds at most `limit` bytes.
  static func read(_ path: String, limit: Int) throws(ReadError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else { throw .system(String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      throw .system("not a regular file")
    }
    let size = Int(info.st_size)
    guard size <= limit else { throw .tooLarge(size) }
    var bytes = [UInt8](repeating: 0, count: size)
    var done = 0
    while done < size {
      let count = bytes.withUnsafeMutableBytes {
        Foundation.read(descriptor, $0.baseAddress! + done, size - done)
      }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else {
        throw .system(
          count == 0 ? "the file shrank while it was read" : String(cString: strerror(errno)))
      }
      done += count
    }
    return bytes
  }
}
