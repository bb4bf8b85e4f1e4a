// Why a file libarchive cannot open is not a zip, in words a person can act on.
extension ZipDirectory {
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
}
