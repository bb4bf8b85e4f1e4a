import CLibDeflate
import Foundation
import ReferenceImageCore

// The first entry (a manifest) read without libarchive when nothing about the archive is
// unusual; any doubt leaves it to libarchive.
extension ZipDirectory {
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
}
