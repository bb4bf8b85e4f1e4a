/// A Git LFS pointer file: the short text Git LFS leaves in the working tree in place of a
/// tracked file until `git lfs pull` fetches the real content.
///
/// A clone made without Git LFS installed, or with `GIT_LFS_SKIP_SMUDGE=1`, has such a file at
/// every reference path. It is never an image: decoding fails with
/// ``PNGError/gitLFSPointer(_:)``, whose message names `git lfs pull`.
///
/// The format (<https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md>):
///
/// ```
/// version https://git-lfs.github.com/spec/v1
/// oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393
/// size 12345
/// ```
public struct GitLFSPointer: Sendable, Hashable, CustomStringConvertible {
  /// The object id of the real file, `sha256:<hex>`; nil when the line is missing.
  public let objectID: String?
  /// The size of the real file in bytes; nil when the line is missing or not a number.
  public let size: Int?

  /// The start of every pointer file.
  public static let prefix = "version https://git-lfs.github.com/spec/"
  /// Pointer files are smaller than this, so a larger file is never mistaken for one.
  public static let maximumByteCount = 1024

  /// Reads a pointer file.
  /// - Parameter bytes: The file's bytes.
  /// - Returns: nil when the bytes are not a Git LFS pointer.
  public init?(_ bytes: some Collection<UInt8>) {
    guard Self.isPointer(bytes), let text = String(validating: Array(bytes), as: UTF8.self)
    else { return nil }
    var objectID: String?
    var size: Int?
    for line in text.split(separator: "\n") {
      if line.hasPrefix("oid ") { objectID = String(line.dropFirst(4)) }
      if line.hasPrefix("size ") { size = Int(line.dropFirst(5)) }
    }
    self.objectID = objectID
    self.size = size
  }

  /// Whether bytes are a Git LFS pointer file rather than the content it stands for: small, and
  /// starting with `version https://git-lfs.github.com/spec/`.
  /// - Parameter bytes: A file's bytes.
  /// - Returns: True for a pointer file.
  public static func isPointer(_ bytes: some Collection<UInt8>) -> Bool {
    bytes.count < maximumByteCount && bytes.starts(with: prefix.utf8)
  }

  /// "a Git LFS pointer to a 12345-byte file (sha256:4d7a…)".
  public var description: String {
    var text = "a Git LFS pointer"
    if let size { text += " to a \(size)-byte file" }
    if let objectID { text += " (\(objectID.prefix(19))…)" }
    return text
  }
}
