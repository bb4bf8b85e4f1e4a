import CArchive
import CLibDeflate
import Foundation

/// One entry read from an archive.
public struct ArchiveEntry: Sendable {
  /// What kind of file system object the entry describes.
  public enum Kind: Sendable, Equatable {
    case regularFile
    case directory
    case symbolicLink
    case hardLink
    /// A device, FIFO, socket or unknown type.
    case special
  }

  /// The entry's path exactly as stored.
  public var path: String
  /// Its kind.
  public var kind: Kind
  /// Its contents (empty for everything but regular files).
  public var bytes: [UInt8]

  package init(path: String, kind: Kind, bytes: [UInt8]) {
    self.path = path
    self.kind = kind
    self.bytes = bytes
  }
}

/// Reads zip archives with libarchive (`archive_read_support_format_zip_seekable`, which trusts
/// the central directory, as `unzip` does), enforcing `ArchiveLimits` while it reads.
public struct ZipReader: Sendable {
  /// Where the archive's bytes are.
  public enum Input: Sendable {
    /// A file on disk.
    case file(URL)
    /// Bytes in memory (an archive nested in another); the name is used in messages.
    case memory([UInt8], name: String)

    var name: String {
      switch self {
      case .file(let url): url.path
      case .memory(_, let name): name
      }
    }
  }

  /// The limits enforced.
  public var limits: ArchiveLimits

  /// Creates a reader.
  /// - Parameter limits: `.default` unless given.
  public init(limits: ArchiveLimits = .default) {
    self.limits = limits
  }

  /// Calls `body` with each entry in archive order; only one entry's bytes are in memory at a
  /// time.
  /// - Parameters:
  ///   - input: The archive.
  ///   - body: Receives each entry; an error it throws stops the reading.
  /// - Throws: `ArchiveError` for unreadable or corrupt archives (bad CRC included), for
  ///   limits exceeded, naming the archive and entry; `.truncatedArchive` for a zip cut short
  ///   and `.notAZipArchive` for a file that is none.
  ///   - headersOnly: Skip the contents; entries arrive with empty `bytes`.
  ///   - wantsData: Asked with each entry's path; when it returns false the contents are skipped
  ///     (not read, not checked) and the entry arrives with empty `bytes`.
  public func forEachEntry(
    in input: Input, headersOnly: Bool = false, wantsData: (String) -> Bool = { _ in true },
    _ body: (ArchiveEntry) throws(ArchiveError) -> Void
  ) throws(ArchiveError) {
    try forEachEntry(
      in: input, headersOnly: headersOnly, wantsData: wantsData, entryLimit: .max, body)
  }

  /// `forEachEntry` for a caller with an error type of its own (the merge's): the reader's
  /// errors reach it through `failure`, and what `body` throws stops the reading and is
  /// rethrown as it is.
  public func forEachEntry<Failure: Error>(
    in input: Input, wantsData: (String) -> Bool = { _ in true },
    failure: (ArchiveError) -> Failure, _ body: (ArchiveEntry) throws(Failure) -> Void
  ) throws(Failure) {
    var bodyError: Failure?
    do {
      try forEachEntry(in: input, wantsData: wantsData) { (entry) throws(ArchiveError) in
        do throws(Failure) {
          try body(entry)
        } catch {
          bodyError = error
          // Only stops the reading: the caller's own error is what is thrown.
          throw .io(operation: "read", path: input.name, message: "stopped")
        }
      }
    } catch {
      throw bodyError ?? failure(error)
    }
  }

  /// The first entry of an archive, with its bytes, reading nothing after it; nil when the
  /// archive is empty. A plain one in a file (a coordinator's manifest) is read without
  /// libarchive (`ZipDirectory.plainFirstEntry`), anything else with it.
  package func firstEntry(in input: Input) throws(ArchiveError) -> ArchiveEntry? {
    if case .file(let url) = input,
      let plain = ZipDirectory.plainFirstEntry(in: url, limits: limits)
    {
      return plain
    }
    var first: ArchiveEntry?
    try forEachEntry(in: input, headersOnly: false, wantsData: { _ in true }, entryLimit: 1) {
      first = $0
    }
    return first
  }

  private func forEachEntry(
    in input: Input, headersOnly: Bool, wantsData: (String) -> Bool, entryLimit: Int,
    _ body: (ArchiveEntry) throws(ArchiveError) -> Void
  ) throws(ArchiveError) {
    let archive = try LibArchiveHandle(.read, name: input.name)
    try archive.check(
      archive_read_support_format_zip_seekable(archive.pointer), "enabling the zip reader")
    // Each entry's CRC-32 is checked here with libdeflate's, three times as fast as the zlib
    // one libarchive calls (and a sixth of a report's time): `checkCRC`.
    try archive.check(
      archive_read_set_options(archive.pointer, "zip:ignorecrc32"), "setting the zip reader up")
    let archiveSize: Int
    switch input {
    case .file(let url):
      // stat(2), not FileManager's attributes, which also look up the owner's and group's
      // names in /etc/passwd and /etc/group on every call.
      var status = stat()
      archiveSize = stat(url.path, &status) == 0 ? Int(status.st_size) : 0
      try opened(archive_read_open_filename(archive.pointer, url.path, 1 << 16), archive, input)
      try readEntries(
        archive, input: input, archiveSize: archiveSize, headersOnly: headersOnly,
        wantsData: wantsData, entryLimit: entryLimit, body)
    case .memory(let bytes, _):
      archiveSize = bytes.count
      // withUnsafeBytes rethrows untyped errors, so the typed one is carried out by hand.
      var failure: ArchiveError?
      bytes.withUnsafeBytes { buffer in
        do throws(ArchiveError) {
          try opened(
            archive_read_open_memory(archive.pointer, buffer.baseAddress, buffer.count),
            archive, input)
          try readEntries(
            archive, input: input, archiveSize: archiveSize, headersOnly: headersOnly,
            wantsData: wantsData, entryLimit: entryLimit, body)
        } catch {
          failure = error
        }
      }
      if let failure { throw failure }
    }
  }

  /// Checks the status of opening an archive. libarchive says only "Unrecognized archive
  /// format" both for a download cut short and for a file that is no zip at all; the file
  /// itself tells which, so the message can say so.
  private func opened(_ status: Int32, _ archive: LibArchiveHandle, _ input: Input)
    throws(ArchiveError)
  {
    guard status < ARCHIVE_WARN else { return }
    throw ZipDirectory.openingFailure(of: input) ?? archive.error("opening the archive")
  }

  private func readEntries(
    _ archive: LibArchiveHandle, input: Input, archiveSize: Int, headersOnly: Bool,
    wantsData: (String) -> Bool, entryLimit: Int,
    _ body: (ArchiveEntry) throws(ArchiveError) -> Void
  ) throws(ArchiveError) {
    var header: OpaquePointer?
    var count = 0
    var total = 0
    let localHeaders = ZipDirectory.LocalHeaders(input)
    while count < entryLimit {
      let status = archive_read_next_header(archive.pointer, &header)
      if status == ARCHIVE_EOF { break }
      try archive.check(status, "reading entry header #\(count + 1)")
      guard let header else { break }
      count += 1
      guard count <= limits.maximumEntryCount else {
        throw .tooLarge(
          source: archive.name, entry: nil,
          reason: "more than \(limits.maximumEntryCount) entries")
      }
      // Right after a header, libarchive's reading stands where the entry's data starts.
      let dataStart = Int(archive_filter_bytes(archive.pointer, 0))
      let path = try Self.path(
        of: header, number: count, in: archive, localHeaders: localHeaders, dataStart: dataStart)
      let kind = Self.kind(of: header)
      var bytes: [UInt8] = []
      if kind == .regularFile && !headersOnly && wantsData(path) {
        bytes = try readData(archive, entry: path, declaredSize: Self.declaredSize(header))
        try Self.checkCRC(
          of: bytes, expected: localHeaders.expectedCRC(ofDataAt: dataStart), entry: path,
          in: archive)
        total += bytes.count
        try checkTotal(total, archiveSize: archiveSize, archive: archive.name, entry: path)
      }
      try body(ArchiveEntry(path: path, kind: kind, bytes: bytes))
    }
  }

  private func checkTotal(
    _ total: Int, archiveSize: Int, archive: String, entry: String
  ) throws(ArchiveError) {
    guard total <= limits.maximumTotalBytes else {
      throw .tooLarge(
        source: archive, entry: entry,
        reason: "entries add up to more than \(limits.maximumTotalBytes) bytes")
    }
    // The slack of 1 MiB lets tiny archives with a well-compressed manifest through.
    guard total <= archiveSize * limits.maximumCompressionRatio + (1 << 20) else {
      throw .tooLarge(
        source: archive, entry: entry,
        reason: "entries expand to \(total) bytes from a \(archiveSize)-byte archive, beyond the "
          + "ratio \(limits.maximumCompressionRatio) allowed (a zip bomb?)")
    }
  }

  private func readData(
    _ archive: LibArchiveHandle, entry: String, declaredSize: Int?
  ) throws(ArchiveError) -> [UInt8] {
    if let declaredSize, declaredSize > limits.maximumEntryBytes {
      throw .tooLarge(
        source: archive.name, entry: entry,
        reason: "declares \(declaredSize) bytes, over the \(limits.maximumEntryBytes)-byte limit")
    }
    if let declaredSize {
      return try readDeclared(archive, entry: entry, size: declaredSize)
    }
    var bytes = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let read = chunk.withUnsafeMutableBytes { buffer in
        archive_read_data(archive.pointer, buffer.baseAddress, buffer.count)
      }
      if read == 0 { break }
      guard read > 0 else { throw archive.error("reading the data of '\(entry)'") }
      bytes.append(contentsOf: chunk[0..<read])
      guard bytes.count <= limits.maximumEntryBytes else {
        throw .tooLarge(
          source: archive.name, entry: entry,
          reason: "expands beyond the \(limits.maximumEntryBytes)-byte limit")
      }
    }
    return bytes
  }

  /// Reads an entry of known size straight into its final array (no chunk copies), then checks
  /// that the data ends where the header said.
  private func readDeclared(
    _ archive: LibArchiveHandle, entry: String, size: Int
  ) throws(ArchiveError) -> [UInt8] {
    var failure: ArchiveError?
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
      count = 0
      while count < size {
        let read = archive_read_data(
          archive.pointer, buffer.baseAddress.map { $0 + count }, size - count)
        if read == 0 { break }
        guard read > 0 else {
          failure = archive.error("reading the data of '\(entry)'")
          return
        }
        count += read
      }
    }
    if let failure { throw failure }
    var extra = 0
    if bytes.count == size {
      var probe: UInt8 = 0
      let read = archive_read_data(archive.pointer, &probe, 1)
      guard read >= 0 else { throw archive.error("reading the data of '\(entry)'") }
      extra = read
    }
    guard bytes.count == size && extra == 0 else {
      throw .libarchive(
        operation: "reading '\(entry)'", path: archive.name,
        message: "declared \(size) bytes but holds \(extra > 0 ? "more" : "\(bytes.count)") "
          + "(truncated?)")
    }
    return bytes
  }

  /// The entry's name exactly as stored. libarchive converts names to the process's locale:
  /// in a program that never set one every non-ASCII name fails to convert, and where one is
  /// set UTF-8 names come out NFC-normalized, no longer the bytes the archive holds. So only an
  /// ASCII name, which no conversion alters, is taken from it; any other is read byte for byte
  /// from the entry's local header, and refused unless it is valid UTF-8.
  private static func path(
    of header: OpaquePointer, number: Int, in archive: LibArchiveHandle,
    localHeaders: ZipDirectory.LocalHeaders, dataStart: Int
  ) throws(ArchiveError) -> String {
    if let converted = archive_entry_pathname_utf8(header) {
      let name = String(cString: converted)
      if name.utf8.allSatisfy({ $0 < 0x80 }) { return name }
    }
    guard let bytes = localHeaders.name(endingAt: dataStart) else {
      throw .refusedEntry(
        source: archive.name, entry: "#\(number)",
        reason: "its name is not ASCII and cannot be found in the archive's headers")
    }
    guard let name = EntryPath.decoded(bytes) else {
      throw .refusedEntry(
        source: archive.name, entry: EntryPath.escaped(bytes: bytes),
        reason: "the name is not valid UTF-8")
    }
    return name
  }

  /// Checks an entry's data against the CRC-32 its headers give, as libarchive would have
  /// (with the same words) had its own check not been turned off for speed.
  private static func checkCRC(
    of bytes: [UInt8], expected: UInt32?, entry: String, in archive: LibArchiveHandle
  ) throws(ArchiveError) {
    let operation = "reading the data of '\(entry)'"
    guard let expected else {
      throw .libarchive(
        operation: operation, path: archive.name,
        message: "its local header is not where the central directory says (no CRC to check)")
    }
    let actual = bytes.withUnsafeBytes { libdeflate_crc32(0, $0.baseAddress, $0.count) }
    guard actual == expected else {
      throw .libarchive(
        operation: operation, path: archive.name,
        message: "ZIP bad CRC: 0x\(String(actual, radix: 16)) should be 0x"
          + String(expected, radix: 16))
    }
  }

  private static func declaredSize(_ header: OpaquePointer) -> Int? {
    archive_entry_size_is_set(header) != 0 ? Int(archive_entry_size(header)) : nil
  }

  private static func kind(of header: OpaquePointer) -> ArchiveEntry.Kind {
    if archive_entry_hardlink(header) != nil { return .hardLink }
    if archive_entry_symlink(header) != nil { return .symbolicLink }
    switch UInt32(archive_entry_filetype(header)) {
    case ri_archive_filetype_regular(): return .regularFile
    case ri_archive_filetype_directory(): return .directory
    case ri_archive_filetype_symlink(): return .symbolicLink
    default: return .special
    }
  }
}
