import Foundation

/// Whether a test executable holds Swift Testing tests, which `swift test` runs in a process of
/// their own: an XCTest process that ran its whole bundle then proves nothing about the
/// references they own. XCTest's process cannot ask Swift Testing which tests exist (that API
/// is not public), so the executable is read: on Linux, `@Test` puts a record in the ELF section
/// `swift5_tests`, which is empty in a bundle of XCTest tests only.
enum SwiftTestingContent {
  /// Whether this process's executable holds Swift Testing tests; nil when it is not known
  /// (Apple platforms, where the bundle is not inspected).
  static let inThisExecutable: Bool? = {
    #if os(Linux)
      return present(inExecutableAt: "/proc/self/exe")
    #else
      return nil
    #endif
  }()

  /// Whether the ELF file at a path has a `swift5_tests` section that is not empty; nil when it
  /// is not a 64-bit little-endian ELF file whose section headers can be read. Reads the
  /// header, the section headers and their names, not the whole file.
  static func present(inExecutableAt path: String) -> Bool? {
    guard let file = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? file.close() }
    func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
      guard count >= 0, count <= 1 << 24, (try? file.seek(toOffset: offset)) != nil,
        let data = try? file.read(upToCount: count), data.count == count
      else { return nil }
      return [UInt8](data)
    }
    // e_ident: "\u{7F}ELF", class 2 (64-bit), data 1 (little-endian).
    guard let header = bytes(at: 0, count: 64), header[0..<6] == [0x7F, 0x45, 0x4C, 0x46, 2, 1]
    else { return nil }
    let sectionTable = header.word(at: 0x28)
    let entrySize = Int(header.half(at: 0x3A))
    let count = Int(header.half(at: 0x3C))
    let namesIndex = Int(header.half(at: 0x3E))
    guard entrySize == 64, count > 0, namesIndex < count,
      let sections = bytes(at: sectionTable, count: count * entrySize)
    else { return nil }
    let namesHeader = namesIndex * entrySize
    guard
      let names = bytes(
        at: sections.word(at: namesHeader + 24), count: Int(sections.word(at: namesHeader + 32)))
    else { return nil }
    let wanted = Array("swift5_tests".utf8) + [0]
    for section in 0..<count {
      let start = Int(sections.half32(at: section * entrySize))
      guard start + wanted.count <= names.count,
        names[start..<start + wanted.count].elementsEqual(wanted)
      else { continue }
      return sections.word(at: section * entrySize + 32) > 0
    }
    return false
  }
}

extension [UInt8] {
  /// The little-endian number of `width` bytes at an offset.
  fileprivate func little(at offset: Int, width: Int) -> UInt64 {
    (0..<width).reduce(0) { $0 | UInt64(self[offset + $1]) << (8 * UInt64($1)) }
  }

  fileprivate func word(at offset: Int) -> UInt64 { little(at: offset, width: 8) }
  fileprivate func half32(at offset: Int) -> UInt32 { UInt32(little(at: offset, width: 4)) }
  fileprivate func half(at offset: Int) -> UInt16 { UInt16(little(at: offset, width: 2)) }
}
