import Foundation

// Entries' local headers, found through the directory: what `ZipReader` checks each entry's
// name and CRC-32 against.
extension ZipDirectory {
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
}
