import CArchive
import Foundation
import ReferenceContracts

/// Writes zip archives with libarchive: PNG entries stored (they are already compressed), the
/// manifest deflated, the whole file written under a temporary name and renamed into place so
/// no reader ever sees half an archive.
public struct ZipWriter: Sendable {
  /// One file to put into the archive.
  public struct Entry: Sendable {
    /// The path inside the archive, relative, with `/` separators.
    public var path: String
    /// The bytes of the file.
    public var contents: Contents

    /// Where an entry's bytes come from.
    public enum Contents: Sendable {
      /// A file on disk, read when the entry is written.
      case file(URL)
      /// Bytes in memory.
      case bytes([UInt8])
    }

    /// Creates an entry.
    public init(path: String, contents: Contents) {
      self.path = path
      self.contents = contents
    }
  }

  /// Creates a writer.
  public init() {}

  /// Writes a zip holding `entries`, atomically replacing any file at `destination`.
  /// - Parameters:
  ///   - entries: The entries in order; `.png` entries are stored, others deflated.
  ///   - destination: The archive's final path; its folder must exist.
  ///   - modificationDate: The time stamp every entry gets.
  /// - Throws: `ArchiveError` naming the file that failed; the destination is then untouched
  ///   and the temporary file removed.
  public func write(
    _ entries: [Entry], to destination: URL, modificationDate: Date = Date()
  ) throws(ArchiveError) {
    let temporary = destination.deletingLastPathComponent().appendingPathComponent(
      ".\(destination.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        + GenerationContract.partialSuffix)
    do {
      try writeArchive(entries, to: temporary, modificationDate: modificationDate)
      try FileSystem.rename(temporary, to: destination)
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    }
  }

  private func writeArchive(
    _ entries: [Entry], to path: URL, modificationDate: Date
  ) throws(ArchiveError) {
    let archive = try LibArchiveHandle(.write, name: path.path)
    try archive.check(archive_write_set_format_zip(archive.pointer), "choosing the zip format")
    // Names as UTF-8 with the zip standard's UTF-8 flag (general purpose bit 11), whatever the
    // locale: without it other tools read `café` in their legacy code page, as `caf├⌐`.
    try archive.check(
      archive_write_set_options(archive.pointer, "zip:hdrcharset=UTF-8"),
      "choosing UTF-8 names")
    try archive.check(archive_write_open_filename(archive.pointer, path.path), "creating the file")
    let seconds = Int(modificationDate.timeIntervalSince1970)
    for entry in entries {
      let bytes = try entry.contents.load()
      // The per-entry switch: format options may only be set before the first header.
      let isPNG = entry.path.hasSuffix(".png")
      try archive.check(
        isPNG
          ? archive_write_zip_set_compression_store(archive.pointer)
          : archive_write_zip_set_compression_deflate(archive.pointer),
        "choosing the compression of \(entry.path)")
      let header = try LibArchiveEntry()
      // Given as UTF-8, not in the locale's encoding, which cannot hold non-ASCII names in a
      // program that never set one.
      archive_entry_set_pathname_utf8(header.pointer, entry.path)
      archive_entry_set_filetype(header.pointer, ri_archive_filetype_regular())
      archive_entry_set_perm(header.pointer, 0o644)
      archive_entry_set_size(header.pointer, la_int64_t(bytes.count))
      archive_entry_set_mtime(header.pointer, seconds, 0)
      try archive.check(
        archive_write_header(archive.pointer, header.pointer), "writing the header of \(entry.path)"
      )
      let written = bytes.withUnsafeBytes { buffer in
        archive_write_data(archive.pointer, buffer.baseAddress, buffer.count)
      }
      guard written == bytes.count else { throw archive.error("writing \(entry.path)") }
    }
    try archive.check(archive_write_close(archive.pointer), "finishing the archive")
  }
}

extension ZipWriter.Entry.Contents {
  func load() throws(ArchiveError) -> [UInt8] {
    switch self {
    case .bytes(let bytes): return bytes
    case .file(let url): return try FileSystem.read(url)
    }
  }
}
