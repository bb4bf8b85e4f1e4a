/// The name a failed comparison's image is attached under (Swift Testing writes it into
/// `--attachments-path` as the file's name), which `merge-refs` reads back to land the actual
/// render at its reference path.
///
/// Swift Testing writes attachments flat, so the reference's package-relative path is carried
/// in the name itself, percent-encoded: `Tests%2FChartTests%2F__References__%2FChart%2Fbar`
/// then the case (`[size=16]`) when the test is parameterized, then the role
/// (`.actual.png`, `.reference.png`, `.difference.png`). `.` and `-` are encoded too, because
/// Swift Testing makes a repeated name unique by inserting `-<random>` before the name's first
/// dot: the encoded path holds neither, so whatever follows it is never read as the path.
/// A name over `maximumBytes` would be written as `untitled`; such a render is attached under
/// the reference's file name alone (`bar.actual.png`), which places nothing.
public struct FailureAttachmentName: Sendable, Hashable {
  /// Which of a failed comparison's images it is.
  public enum Role: String, Sendable, CaseIterable {
    /// The render that failed: a candidate reference.
    case actual
    /// The reference it was compared with.
    case reference
    /// The difference image.
    case difference
  }

  /// The reference's package-relative path (`Tests/ChartTests/__References__/Chart/bar.png`);
  /// nil when the name does not carry it.
  public var referencePath: String?
  /// The file name without `.png` and without the role: the reference's name and the case.
  public var stem: String
  /// The role.
  public var role: Role

  /// The longest name written with its path: Swift Testing writes longer names as
  /// `untitled`, and a file name holds at most 255 bytes, `-<random>` included.
  public static let maximumBytes = 230

  /// The name for one image of a failed comparison.
  /// - Parameters:
  ///   - referencePath: The reference's package-relative path, ending with `.png`.
  ///   - caseSuffix: The case as artifact names carry it (`[size=16]`), or nil.
  ///   - role: Which image.
  public init(referencePath: String, caseSuffix: String?, role: Role) {
    let withoutPNG =
      referencePath.hasSuffix(".png")
      ? String(referencePath.dropLast(4)) : referencePath
    let encoded = Self.encoded(withoutPNG) + (caseSuffix ?? "")
    let carried = encoded.utf8.count + role.rawValue.utf8.count + 5 <= Self.maximumBytes
    let name = withoutPNG.split(separator: "/").last.map(String.init) ?? withoutPNG
    self.referencePath = carried ? referencePath : nil
    self.stem = carried ? encoded : name + (caseSuffix ?? "")
    self.role = role
  }

  /// Reads a name back: nil when it does not end with a role. `referencePath` is nil when the
  /// name carries no path (one attached under the reference's file name alone).
  public init?(fileName: String) {
    guard
      let role = Role.allCases.first(where: { fileName.hasSuffix(".\($0.rawValue).png") })
    else { return nil }
    let stem = String(fileName.dropLast(role.rawValue.utf8.count + 5))
    // The encoded path ends at the case's `[`, or at what Swift Testing inserted (`-`, `.`).
    let encodedPath = stem.prefix { !"[.-".contains($0) }
    let path = Self.decoded(String(encodedPath))
    self.role = role
    self.stem = stem
    self.referencePath = path.flatMap { $0.contains("/") ? $0 + ".png" : nil }
  }

  /// The attachment's name.
  public var fileName: String { "\(stem).\(role.rawValue).png" }

  /// Bytes written as `%XX`: the escape itself, separators, what Swift Testing or a CI
  /// artifact store would change or refuse, and control characters.
  private static func mustEncode(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == 0x7F || Array("%/\\.-[]:\"<>|*?".utf8).contains(byte)
  }

  static func encoded(_ text: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var bytes: [UInt8] = []
    // Bytes of multi-byte characters are kept as they are, so the name stays UTF-8.
    for byte in text.utf8 {
      if mustEncode(byte) {
        bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The text of an encoded name, or nil when an escape is malformed or the bytes are not
  /// UTF-8.
  static func decoded(_ text: String) -> String? {
    var bytes: [UInt8] = []
    var iterator = Array(text.utf8).makeIterator()
    while let byte = iterator.next() {
      guard byte == UInt8(ascii: "%") else {
        bytes.append(byte)
        continue
      }
      guard let high = iterator.next().flatMap(hexValue),
        let low = iterator.next().flatMap(hexValue)
      else { return nil }
      bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    default: nil
    }
  }
}
