import CLibDeflate
import Foundation
import ReferenceImageCore

/// Reads a zip's central directory (the list at its end) without reading any entry, to learn
/// up front what the archive holds: whether a manifest is coming decides how a merge reads the
/// entries before it.
package enum ZipDirectory {
  /// Whether the archive has an entry of exactly this name; nil when the directory cannot be
  /// read (then callers must not assume either way).
  package static func containsEntry(_ name: String, in input: ZipReader.Input) -> Bool? {
    guard let (read, size) = reader(of: input) else { return nil }
    let wanted = Array(name.utf8)
    var found = false
    let walked = walkRecords(read: read, size: size) { record in
      found = record.name.elementsEqual(wanted)
      return !found
    }
    return walked ? found : nil
  }

  /// Every entry the directory lists, in order, as entries without bytes, with the kind
  /// libarchive gives them (the Unix mode of archives made on Unix; a trailing `/` for
  /// folders); nil when the directory cannot be read, or a name is not valid UTF-8 (then
  /// `ZipReader` refuses that entry by name, rather than a listing showing an altered one).
  package static func entries(in url: URL) -> [ArchiveEntry]? {
    guard let file = OpenFile(url), let records = records(read: file.read, size: { file.size })
    else { return nil }
    var entries: [ArchiveEntry] = []
    entries.reserveCapacity(records.count)
    for record in records {
      guard let name = EntryPath.decoded(record.name) else { return nil }
      let kind: ArchiveEntry.Kind =
        switch record.mode & 0o170000 {
        case 0o120000: .symbolicLink
        case 0o040000: .directory
        case 0, 0o100000: name.hasSuffix("/") ? .directory : .regularFile
        default: .special
        }
      entries.append(ArchiveEntry(path: name, kind: kind, bytes: []))
    }
    return entries
  }

  /// What `ZipReader` reads of an entry's local header, looked up by where the entry's data
  /// starts (where libarchive's reading stands right after a header): its name byte for byte,
  /// for the names libarchive cannot give unaltered, and the CRC-32 its data must have. The
  /// directory is read on the first question.
  package final class LocalHeaders {
    private let input: ZipReader.Input
    private var read: ((Int, Int) -> [UInt8]?)?
    /// The local headers' offsets, ascending, each with its central-directory record's CRC-32;
    /// nil until read, empty when unreadable.
    private var headers: [(offset: Int, centralCRC: UInt32)]?

    package init(_ input: ZipReader.Input) {
      self.input = input
    }

    /// The name in the local header whose name and extra field end at `dataStart`; nil when no
    /// header the directory lists ends there.
    package func name(endingAt dataStart: Int) -> [UInt8]? {
      guard let (index, header) = header(endingAt: dataStart), let headers else { return nil }
      return read?(headers[index].offset + 30, le16(header, 26))
    }

    /// The CRC-32 libarchive checks the data that starts at `dataStart` against: the local
    /// header's, or the central-directory record's where the local header leaves it zero (a
    /// writer that put it after the data); nil when no header the directory lists ends there.
    package func expectedCRC(ofDataAt dataStart: Int) -> UInt32? {
      guard let (index, header) = header(endingAt: dataStart), let headers else { return nil }
      let local = UInt32(le32(header, 14))
      return local != 0 ? local : headers[index].centralCRC
    }

    /// The 30 fixed bytes of the local header whose name and extra field end at `dataStart`,
    /// and its index in `headers`.
    private func header(endingAt dataStart: Int) -> (index: Int, bytes: [UInt8])? {
      if headers == nil {
        let reader = ZipDirectory.reader(of: input)
        read = reader.map { BlockReader(read: $0.read, size: $0.size()).read }
        headers =
          reader.flatMap { records(read: $0.read, size: $0.size) }?
          .map { ($0.localHeaderOffset, $0.crc32) }.sorted { $0.offset < $1.offset } ?? []
      }
      // Headers do not overlap, so the one that ends at `dataStart` is the last one before it.
      guard let read, let headers, let index = lastIndex(before: dataStart),
        let header = read(headers[index].offset, 30), le32(header, 0) == 0x0403_4b50,
        headers[index].offset + 30 + le16(header, 26) + le16(header, 28) == dataStart
      else { return nil }
      return (index, header)
    }

    /// A binary search: archives may hold tens of thousands of entries.
    private func lastIndex(before position: Int) -> Int? {
      guard let headers else { return nil }
      var low = 0
      var high = headers.count
      while low < high {
        let middle = (low + high) / 2
        if headers[middle].offset < position { low = middle + 1 } else { high = middle }
      }
      return low > 0 ? low - 1 : nil
    }
  }

  /// The first entry of a zip on disk, with its bytes, read here when it is plain: a regular
  /// file made on Unix with an ASCII name, stored or deflated, at the archive's start, its
  /// local header agreeing with its directory record, within `limits`, its CRC-32 right.
  /// libarchive takes 60 KiB of buffers, the whole directory's records and zlib to read it;
  /// a merge reads every archive's manifest this way twice (the shards' evidence, then the
  /// scan). Nil for anything else, and for any doubt: `ZipReader.firstEntry` then reads it
  /// with libarchive, whose checks and messages stand.
  package static func plainFirstEntry(in url: URL, limits: ArchiveLimits) -> ArchiveEntry? {
    guard let file = OpenFile(url), let records = plainRecords(of: file, limits: limits),
      let first = records.first(where: { $0.localHeaderOffset == 0 }),
      isPlain(first, limits: limits, archiveSize: file.size),
      let name = String(validating: first.name, as: UTF8.self),
      let bytes = plainData(of: first, among: records, in: file)
    else { return nil }
    return ArchiveEntry(path: name, kind: .regularFile, bytes: bytes)
  }

  /// The directory's records, when libarchive would read them as they are and one of them
  /// starts the file; nil otherwise.
  private static func plainRecords(of file: OpenFile, limits: ArchiveLimits) -> [Record]? {
    guard let (tail, end) = endRecord(read: file.read, size: file.size),
      let records = records(read: file.read, size: { file.size }, end: (tail, end)),
      records.count <= limits.maximumEntryCount,
      records.lazy.filter({ $0.localHeaderOffset == 0 }).count == 1,
      // libarchive reads every record's extra fields before the first entry.
      records.allSatisfy({ hasOnlyPlainFields($0.extra) }),
      // The end record ends the file (no comment), is of one disk, counts the records the
      // directory holds, and follows the directory right away (where libarchive looks).
      end == tail.count - 22, le16(tail, end + 4) == 0, le16(tail, end + 6) == 0,
      le16(tail, end + 8) == records.count, le16(tail, end + 10) == records.count,
      le32(tail, end + 16) + le32(tail, end + 12) == file.size - 22
    else { return nil }
    return records
  }

  /// The data of the entry at the file's start, read through its local header, inflated and
  /// its CRC-32 checked; nil when anything disagrees.
  private static func plainData(of first: Record, among records: [Record], in file: OpenFile)
    -> [UInt8]?
  {
    guard let header = file.read(0, 30), le32(header, 0) == 0x0403_4b50,
      le16(header, 6) == first.flags, le16(header, 8) == first.method,
      le16(header, 26) == first.name.count, agree(local: header, central: first),
      let localName = file.read(30, first.name.count), localName.elementsEqual(first.name),
      let localExtra = file.read(30 + first.name.count, le16(header, 28)),
      hasOnlyPlainFields(localExtra[...])
    else { return nil }
    let dataStart = 30 + first.name.count + localExtra.count
    // No other entry's header said to start inside this one's (`LocalHeaders` finds an
    // entry's CRC by the header just before its data).
    guard !records.contains(where: { (1..<dataStart).contains($0.localHeaderOffset) }),
      let stored = file.read(dataStart, first.compressedSize),
      let bytes = inflate(stored, method: first.method, size: first.size)
    else { return nil }
    let localCRC = UInt32(le32(header, 14))
    let expected = localCRC != 0 ? localCRC : first.crc32
    let actual = bytes.withUnsafeBytes { libdeflate_crc32(0, $0.baseAddress, $0.count) }
    return actual == expected ? bytes : nil
  }

  /// Whether a local header's CRC-32 and sizes are its directory record's, or left zero for
  /// a data descriptor (flag bit 3) to give, as libarchive's writer leaves them.
  private static func agree(local header: [UInt8], central record: Record) -> Bool {
    let deferred = record.flags & 0b1000 != 0
    return [(14, Int(record.crc32)), (18, record.compressedSize), (22, record.size)]
      .allSatisfy { offset, value in
        le32(header, offset) == value || (deferred && le32(header, offset) == 0)
      }
  }

  /// Whether a directory record is of the plain kind `plainFirstEntry` reads.
  private static func isPlain(_ record: Record, limits: ArchiveLimits, archiveSize: Int) -> Bool {
    // Not encrypted (bits 0 and 6), not patch data (bit 5); a data descriptor (bit 3) is
    // fine, as the directory gives the sizes.
    record.flags & 0b110_0001 == 0 && [0, 8].contains(record.method)
      && record.mode & 0o170000 == 0o100000 && record.name.allSatisfy { $0 < 0x80 }
      && record.name.last != UInt8(ascii: "/") && !record.name.isEmpty
      && record.compressedSize != 0xFFFF_FFFF && record.size != 0xFFFF_FFFF
      && (record.method == 8 || record.compressedSize == record.size)
      && record.size <= limits.maximumEntryBytes && record.size <= limits.maximumTotalBytes
      && record.size <= archiveSize * limits.maximumCompressionRatio + (1 << 20)
  }

  /// Whether extra fields are only those libarchive's writer adds (extended time stamps, Unix
  /// owners), each whole: others may rename an entry (Info-ZIP's Unicode path), size it
  /// (zip64), encrypt it, or make libarchive refuse the archive.
  private static func hasOnlyPlainFields(_ extra: ArraySlice<UInt8>) -> Bool {
    var field = extra.startIndex
    while field + 4 <= extra.endIndex {
      let id = Int(extra[field]) | Int(extra[field + 1]) << 8
      let length = Int(extra[field + 2]) | Int(extra[field + 3]) << 8
      guard id == 0x7875 || (id == 0x5455 && length > 0) else { return false }
      field += 4 + length
    }
    return field == extra.endIndex
  }

  /// An entry's data, stored or inflated to exactly `size` bytes; nil when it is not.
  private static func inflate(_ stored: [UInt8], method: Int, size: Int) -> [UInt8]? {
    guard method == 8 else { return stored.count == size ? stored : nil }
    guard let decompressor = LibDeflateDecompressor() else { return nil }
    var inflated = true
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
      inflated = stored.withUnsafeBytes {
        decompressor.inflateRaw($0, into: UnsafeMutableRawBufferPointer(buffer))
      }
      count = inflated ? size : 0
    }
    return inflated ? bytes : nil
  }

  /// Reads through a block of the archive kept from the last read: the local headers of small
  /// entries lie a few hundred bytes apart, and one `pread(2)` for each of them would be one
  /// more system call for every entry a merge lands.
  private final class BlockReader {
    static let blockSize = 4096
    private let readRange: (Int, Int) -> [UInt8]?
    private let size: Int?
    private var block: [UInt8] = []
    private var blockStart = 0

    init(read: @escaping (Int, Int) -> [UInt8]?, size: Int?) {
      readRange = read
      self.size = size
    }

    /// `count` bytes from `offset`, or nil when the archive has fewer.
    func read(_ offset: Int, _ count: Int) -> [UInt8]? {
      let start = offset - blockStart
      if start >= 0, count >= 0, start + count <= block.count {
        return Array(block[start..<(start + count)])
      }
      guard count <= Self.blockSize, let size, offset >= 0, offset < size,
        let fresh = readRange(offset, min(Self.blockSize, size - offset)), fresh.count >= count
      else { return readRange(offset, count) }
      (block, blockStart) = (fresh, offset)
      return Array(fresh[0..<count])
    }
  }

  /// The fields of one central-directory record this file needs.
  private struct Record {
    var name: ArraySlice<UInt8>
    /// The Unix mode of archives made on Unix, else 0.
    var mode: Int
    var localHeaderOffset: Int
    var crc32: UInt32
    /// The general purpose flags, the compression method and the two sizes, as stored
    /// (0xFFFF_FFFF where a zip64 extra field holds a size).
    var flags: Int
    var method: Int
    var compressedSize: Int
    var size: Int
    var extra: ArraySlice<UInt8>
  }

  /// Every record of the central directory, in order; nil when it cannot be read.
  /// - Parameter end: The end record, when the caller has read it already.
  private static func records(
    read: (Int, Int) -> [UInt8]?, size: () -> Int?, end: (tail: [UInt8], at: Int)? = nil
  ) -> [Record]? {
    var records: [Record] = []
    let walked = walkRecords(read: read, size: size, end: end) { record in
      records.append(record)
      return true
    }
    return walked ? records : nil
  }

  /// The one walk of the central directory: hands each record to `visit`, in order, until it
  /// returns false.
  /// - Returns: false when the directory cannot be read or a record before the stop is
  ///   malformed (then nothing it listed can be trusted).
  private static func walkRecords(
    read: (Int, Int) -> [UInt8]?, size: () -> Int?, end: (tail: [UInt8], at: Int)? = nil,
    visit: (Record) -> Bool
  ) -> Bool {
    guard let (offset, length) = directoryRange(read: read, size: size, end: end),
      length < 1 << 30, let directory = read(offset, length)
    else { return false }
    var position = 0
    while position < directory.count {
      guard position + 46 <= directory.count, le32(directory, position) == 0x0201_4b50 else {
        return false
      }
      let nameLength = le16(directory, position + 28)
      let extraLength = le16(directory, position + 30)
      let nameStart = position + 46
      guard nameStart + nameLength <= directory.count else { return false }
      let madeOnUnix = directory[position + 5] == 3
      let extra =
        directory[
          nameStart + nameLength..<min(nameStart + nameLength + extraLength, directory.count)]
      let record = Record(
        name: directory[nameStart..<nameStart + nameLength],
        mode: madeOnUnix ? le32(directory, position + 38) >> 16 : 0,
        localHeaderOffset: localHeaderOffset(directory, record: position, extra: extra),
        crc32: UInt32(le32(directory, position + 16)), flags: le16(directory, position + 8),
        method: le16(directory, position + 10), compressedSize: le32(directory, position + 20),
        size: le32(directory, position + 24), extra: extra)
      guard visit(record) else { return true }
      position = nameStart + nameLength + extraLength + le16(directory, position + 32)
    }
    // A last record whose fields run past the directory's end is malformed too, as
    // libarchive finds ("Truncated ZIP file header").
    return position == directory.count
  }

  /// A record's local header offset; archives past 4 GiB keep it in the zip64 extra field,
  /// after whichever of the sizes also overflowed.
  private static func localHeaderOffset(
    _ directory: [UInt8], record: Int, extra: ArraySlice<UInt8>
  ) -> Int {
    let offset = le32(directory, record + 42)
    guard offset == 0xFFFF_FFFF else { return offset }
    var field = extra.startIndex
    while field + 4 <= extra.endIndex {
      let id = le16(directory, field)
      let length = le16(directory, field + 2)
      if id == 0x0001 {
        let overflowed = [record + 24, record + 20].filter { le32(directory, $0) == 0xFFFF_FFFF }
        let at = field + 4 + 8 * overflowed.count
        return at + 8 <= min(field + 4 + length, extra.endIndex) ? le64(directory, at) : offset
      }
      field += 4 + length
    }
    return offset
  }

  /// Reads ranges of an archive on disk or in memory, and its size; nil when the file cannot
  /// be opened.
  private static func reader(of input: ZipReader.Input)
    -> (read: (Int, Int) -> [UInt8]?, size: () -> Int?)?
  {
    switch input {
    case .file(let url):
      guard let file = OpenFile(url) else { return nil }
      return (file.read, { file.size })
    case .memory(let bytes, _):
      return (
        { offset, count in
          offset >= 0 && count >= 0 && offset + count <= bytes.count
            ? Array(bytes[offset..<offset + count]) : nil
        }, { bytes.count }
      )
    }
  }

  /// Why a file that libarchive cannot open as a zip is not one, in words a person can act
  /// on: cut short (it starts as a zip, but its end record is missing), or not a zip at all.
  /// Nil when the file cannot be read, or has an end record (then what libarchive says
  /// stands).
  package static func openingFailure(of input: ZipReader.Input) -> ArchiveError? {
    guard let (read, size) = reader(of: input), let size = size() else { return nil }
    guard endRecord(read: read, size: size) == nil else { return nil }
    let head = read(0, min(size, 16)) ?? []
    // A local file header, or the marker a spanned archive starts with: a zip cut short.
    if head.count >= 4 && [0x0403_4b50, 0x0807_4b50].contains(le32(head, 0)) {
      return .truncatedArchive(path: input.name, size: size)
    }
    return .notAZipArchive(path: input.name, size: size, start: describeStart(head))
  }

  /// The first bytes of a file that is not a zip, as a person would recognise them.
  private static func describeStart(_ head: [UInt8]) -> String {
    if head.starts(with: [0x1F, 0x8B]) { return "gzip data" }
    let text = String(decoding: head, as: UTF8.self)
    if text.drop(while: \.isWhitespace).first == "<" {
      return "a web page or XML (a sign-in or error page saved in its place?)"
    }
    if head.allSatisfy({ (0x20..<0x7F).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
      let line = text.prefix { $0 != "\n" && $0 != "\r" }
      return "text starting \"\(line)\""
    }
    return "starting with bytes " + head.prefix(8).map { hex($0) }.joined(separator: " ")
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
  }

  /// The last bytes of an archive and where its end record starts in them; nil when there is
  /// none.
  private static func endRecord(read: (Int, Int) -> [UInt8]?, size: Int) -> (
    tail: [UInt8], at: Int
  )? {
    guard size >= 22 else { return nil }
    // The end record is 22 bytes plus a comment of up to 65,535.
    let tailLength = min(size, 22 + 65_535 + 20)
    guard let tail = read(size - tailLength, tailLength),
      let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: {
        le32(tail, $0) == 0x0605_4b50
      })
    else { return nil }
    return (tail, end)
  }

  /// The central directory's offset and length, from the end record (or its zip64 form):
  /// `known`, or read from the archive's last bytes.
  private static func directoryRange(
    read: (Int, Int) -> [UInt8]?, size: () -> Int?, end known: (tail: [UInt8], at: Int)?
  ) -> (Int, Int)? {
    guard let (tail, end) = known ?? size().flatMap({ endRecord(read: read, size: $0) }) else {
      return nil
    }
    let length = le32(tail, end + 12)
    let offset = le32(tail, end + 16)
    if offset != 0xFFFF_FFFF && length != 0xFFFF_FFFF && le16(tail, end + 10) != 0xFFFF {
      return (offset, length)
    }
    // Zip64: a locator just before the end record points at the zip64 end record.
    guard end >= 20, le32(tail, end - 20) == 0x0706_4b50 else { return nil }
    let record = le64(tail, end - 20 + 8)
    guard let zip64 = read(record, 56), le32(zip64, 0) == 0x0606_4b50 else { return nil }
    return (le64(zip64, 48), le64(zip64, 40))
  }

  private static func le16(_ bytes: [UInt8], _ at: Int) -> Int {
    Int(bytes[at]) | Int(bytes[at + 1]) << 8
  }

  private static func le32(_ bytes: [UInt8], _ at: Int) -> Int {
    le16(bytes, at) | le16(bytes, at + 2) << 16
  }

  private static func le64(_ bytes: [UInt8], _ at: Int) -> Int {
    le32(bytes, at) | le32(bytes, at + 4) << 32
  }
}

/// A file read with `pread(2)` in one call per range (FileHandle reads 4 KiB at a time).
private final class OpenFile {
  let descriptor: Int32
  let size: Int

  init?(_ url: URL) {
    descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      return nil
    }
    size = Int(status.st_size)
  }

  deinit { close(descriptor) }

  func read(_ offset: Int, _ count: Int) -> [UInt8]? {
    guard offset >= 0, count >= 0, offset + count <= size else { return nil }
    let descriptor = descriptor
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, done in
      // A file that ends early is as incomplete as a failed read.
      done =
        FileSystem.readAll(into: UnsafeMutableRawBufferPointer(buffer)) { rest, before in
          pread(descriptor, rest.baseAddress, rest.count, off_t(offset + before))
        }.count
    }
    return bytes.count == count ? bytes : nil
  }
}
