import ReferenceImageCore

/// What a repository keeps of a reference whose PNG lives in a store: a few lines of text
/// that say which pixels the reference holds and which object holds its PNG.
///
/// ```
/// reference-pointer 1
/// pixel-sha256 <64 hex digits>
/// pixel-xxh3 <32 hex digits>
/// size <width>x<height>
/// object <64 hex digits>
/// object-size <bytes>
/// ```
///
/// The pixel digests are the ones the PNG's pixel digest chunk carries, so a render is
/// checked against a pointer exactly as against a PNG with a trusted chunk, without the
/// object. The same reference always gives the same text, and a change shows in `git diff`
/// as the lines that changed.
public struct ReferencePointer: Hashable, Sendable {
  /// The pixels the reference decodes to: width, height and both digests.
  public var pixels: PNGPixelDigest
  /// The stored object: the SHA-256 of the PNG file's bytes.
  public var object: ObjectKey
  /// The PNG file's size in bytes.
  public var objectSize: Int

  /// The pointer's extension, added to the reference's own path: `chart.png` is pointed to by
  /// `chart.png.ref`.
  public static let pathExtension = ".ref"
  /// The only format version written and read.
  public static let formatVersion = 1
  /// A pointer file is never longer than this; a larger file is not a pointer.
  public static let sizeLimit = 1024

  public init(pixels: PNGPixelDigest, object: ObjectKey, objectSize: Int) {
    self.pixels = pixels
    self.object = object
    self.objectSize = objectSize
  }

  /// The pointer of a PNG the package wrote (it carries a version 2 pixel digest).
  /// - Returns: nil when the file has no trusted version 2 pixel digest: such a reference
  ///   needs `add-pixel-digests` (or a rewrite) before it can be moved to a store.
  /// - Parameter key: The PNG's SHA-256 when the caller has checked it already (a merge's
  ///   staged entry); computed otherwise.
  public init?(png: [UInt8], key: ObjectKey? = nil) {
    guard let digest = PNGPixelDigest.read(fromPNG: png), digest.pixelXXH3 != nil else {
      return nil
    }
    self.init(pixels: digest, object: key ?? ObjectKey(of: png), objectSize: png.count)
  }

  /// The pointer's path for a reference path (`chart.png` → `chart.png.ref`).
  public static func path(for referencePath: String) -> String {
    referencePath + pathExtension
  }

  /// The reference path a pointer's path names, or nil when it is not a pointer's path.
  public static func referencePath(of pointerPath: String) -> String? {
    guard pointerPath.hasSuffix(".png" + pathExtension) else { return nil }
    return String(pointerPath.dropLast(pathExtension.count))
  }

  /// The pointer's text.
  public var text: String {
    """
    reference-pointer \(Self.formatVersion)
    pixel-sha256 \(pixels.pixelSHA256.hex)
    pixel-xxh3 \(pixels.pixelXXH3?.description ?? "")
    size \(pixels.width)x\(pixels.height)
    object \(object.hex)
    object-size \(objectSize)

    """
  }

  /// The pointer's bytes, as written to its file.
  public var bytes: [UInt8] { Array(text.utf8) }

  /// Reads a pointer file's bytes.
  /// - Parameter path: The file, named in errors.
  /// - Throws: `StoreError.badPointer` naming what is wrong: an unknown version, a missing or
  ///   repeated line, a digest that is not hex of the right length, a size that is not a
  ///   positive number.
  public init(parsing bytes: [UInt8], path: String) throws(StoreError) {
    func bad(_ reason: String) -> StoreError { .badPointer(path: path, reason: reason) }
    guard bytes.count <= Self.sizeLimit else { throw bad("it has over \(Self.sizeLimit) bytes") }
    guard let text = String(validating: bytes, as: UTF8.self) else { throw bad("it is not UTF-8") }
    var fields: [String: String] = [:]
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      let parts = line.split(separator: " ", maxSplits: 1)
      guard parts.count == 2 else { throw bad("the line '\(line)' is not 'name value'") }
      let name = String(parts[0])
      guard fields[name] == nil else { throw bad("the line '\(name)' appears twice") }
      fields[name] = String(parts[1])
    }
    func field(_ name: String) throws(StoreError) -> String {
      guard let value = fields.removeValue(forKey: name) else { throw bad("no '\(name)' line") }
      return value
    }
    guard try field("reference-pointer") == String(Self.formatVersion) else {
      throw bad("its format version is not \(Self.formatVersion); is this package older?")
    }
    guard let sha256 = SHA256Digest(hex: try field("pixel-sha256")) else {
      throw bad("pixel-sha256 is not 64 lowercase hex digits")
    }
    guard let xxh3 = Self.xxh3(try field("pixel-xxh3")) else {
      throw bad("pixel-xxh3 is not 32 lowercase hex digits")
    }
    let size = try field("size").split(separator: "x")
    guard size.count == 2, let width = Self.positive(size[0]), let height = Self.positive(size[1])
    else { throw bad("size is not WIDTHxHEIGHT") }
    guard let object = ObjectKey(try field("object")) else {
      throw bad("object is not 64 lowercase hex digits")
    }
    guard let objectSize = Self.positive(try field("object-size")) else {
      throw bad("object-size is not a positive number")
    }
    if let unknown = fields.keys.sorted().first { throw bad("unknown line '\(unknown)'") }
    self.init(
      pixels: PNGPixelDigest(width: width, height: height, pixelSHA256: sha256, pixelXXH3: xxh3),
      object: object, objectSize: objectSize)
  }

  private static func positive(_ text: some StringProtocol) -> Int? {
    guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), text.first != "0",
      let value = Int(text), value > 0
    else { return nil }
    return value
  }

  private static func xxh3(_ text: String) -> XXH3Digest? {
    let digits = Array(text.utf8)
    guard digits.count == 32 else { return nil }
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: 32, by: 2) {
      guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else {
        return nil
      }
      bytes.append(high << 4 | low)
    }
    return XXH3Digest(canonicalBytes: bytes)
  }

  private static func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case 0x30...0x39: return digit - 0x30
    case 0x61...0x66: return digit - 0x61 + 10
    default: return nil
    }
  }
}

extension ReferencePointer {
  /// The pointer of any PNG: its own trusted pixel digest when it has one, else the digests of
  /// its decoded pixels (a PNG another tool wrote).
  /// - Throws: `PNGError` when the file does not decode.
  public static func make(png: [UInt8]) throws -> ReferencePointer {
    if let pointer = ReferencePointer(png: png) { return pointer }
    let image = try PNGDecoder().decode(png)
    let digest = PNGPixelDigest(
      width: image.width, height: image.height, pixelSHA256: SHA256Digest(of: image.pixels),
      pixelXXH3: XXH3Digest(of: image.pixels))
    return ReferencePointer(pixels: digest, object: ObjectKey(of: png), objectSize: png.count)
  }
}
