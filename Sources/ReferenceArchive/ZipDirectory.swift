import Foundation

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

  /// The fields of one central-directory record that `ZipDirectory` needs.
  struct Record {
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
  static func records(
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
  static func walkRecords(
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
  static func reader(of input: ZipReader.Input)
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

  /// The last bytes of an archive and where its end record starts in them; nil when there is
  /// none.
  static func endRecord(read: (Int, Int) -> [UInt8]?, size: Int) -> (
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

  static func le16(_ bytes: [UInt8], _ at: Int) -> Int {
    Int(bytes[at]) | Int(bytes[at + 1]) << 8
  }

  static func le32(_ bytes: [UInt8], _ at: Int) -> Int {
    le16(bytes, at) | le16(bytes, at + 2) << 16
  }

  static func le64(_ bytes: [UInt8], _ at: Int) -> Int {
    le32(bytes, at) | le32(bytes, at + 4) << 32
  }
}

/// A file read with `pread(2)` in one call per range (FileHandle reads 4 KiB at a time).
final class OpenFile {
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
