import CLibCrypto
import CZstd
import Foundation

/// The objects of a result bundle's `Data` folder: `data.<id>` files, zstd-compressed or
/// stored, read without following links and within the limits.
struct ObjectStore {
  let bundle: URL
  let limits: ImportLimits
  private let data: URL
  /// `Data/` as a path string: building a URL per object costs more than reading a small one.
  private let dataPath: String

  /// Objects held in memory instead of files, by id: what the fuzz target reads.
  private var memory: [String: [UInt8]]?

  /// A store of objects held in memory, for the fuzz target: no file system in the loop.
  init(bundle: URL, limits: ImportLimits, objects: [String: [UInt8]]) {
    self.bundle = bundle
    self.limits = limits
    data = bundle.appendingPathComponent("Data")
    dataPath = data.path
    memory = objects
  }

  init(bundle: URL, limits: ImportLimits) throws(ImportError) {
    self.bundle = bundle
    self.limits = limits
    data = bundle.appendingPathComponent("Data")
    dataPath = data.path
    guard FileStatus.of(data.path) == .directory else {
      throw ImportError(
        container: bundle.path, object: "Data",
        reason: "not a folder (missing, or a symbolic link): not a result bundle, or a damaged copy"
      )
    }
  }

  /// The decompressed bytes of a typed object. Its id is checked against its bytes when its
  /// `refs` file says it refers to nothing (Apple derives other ids in a way not published).
  func object(_ id: String) throws(ImportError) -> [UInt8] {
    let stored = try read(id, limit: limits.maximumObjectBytes)
    if referencesNothing(id) { try checkContentID(id, of: stored) }
    return try decompress(stored, id: id, limit: limits.maximumObjectBytes)
  }

  /// The bytes of an attachment payload, checked against its content id before use.
  func payload(_ id: String) throws(ImportError) -> [UInt8] {
    let stored = try read(id, limit: limits.maximumPayloadBytes)
    try checkContentID(id, of: stored)
    return try decompress(stored, id: id, limit: limits.maximumPayloadBytes)
  }

  /// The first bytes of a payload, enough to tell what it holds, its stored bytes checked
  /// against its content id: a corrupt payload that lands nowhere (a screenshot, a failure's
  /// reference image) is refused like one that lands, never judged from damaged bytes.
  func payloadPrefix(_ id: String, count: Int) throws(ImportError) -> [UInt8] {
    let stored = try read(id, limit: limits.maximumPayloadBytes)
    try checkContentID(id, of: stored)
    guard Zstd.isFrame(stored) else { return Array(stored.prefix(count)) }
    do { return try Zstd.prefix(stored, count: count) } catch {
      throw failure(id, "damaged zstd data: a truncated or corrupt copy")
    }
  }

  /// Whether the object's `refs` file is present and lists no reference.
  private func referencesNothing(_ id: String) -> Bool {
    if memory != nil { return false }
    let refs = dataPath + "/refs." + id
    guard FileStatus.of(refs) == .regularFile,
      let bytes = try? FileStatus.read(refs, limit: 1 << 20)
    else { return false }
    return bytes.first == 0
  }

  private func read(_ id: String, limit: Int) throws(ImportError) -> [UInt8] {
    guard Self.isValidID(id) else {
      throw failure(id, "not an object id (expected 0~ and base64url)")
    }
    if let memory {
      guard let bytes = memory[id] else { throw failure(id, "the object is missing from Data/") }
      guard bytes.count <= limit else {
        throw failure(id, "\(bytes.count) bytes stored, over the limit")
      }
      return bytes
    }
    let path = dataPath + "/data." + id
    switch FileStatus.of(path) {
    case .regularFile: break
    case .missing: throw failure(id, "the object is missing from Data/: a damaged or partial copy")
    case .symbolicLink: throw failure(id, "the object is a symbolic link, which is never followed")
    default: throw failure(id, "the object is not a regular file")
    }
    do {
      return try FileStatus.read(path, limit: limit)
    } catch FileStatus.ReadError.tooLarge(let size) {
      throw failure(id, "\(size) bytes stored, over the \(limit)-byte limit")
    } catch {
      throw failure(id, "cannot be read: \(error)")
    }
  }

  /// Ids are `0~` and base64url of a 64-byte digest; nothing in them can climb out of `Data`.
  static func isValidID(_ id: String) -> Bool {
    let bytes = Array(id.utf8)
    guard bytes.count > 2, bytes.count <= 200, bytes[0] == UInt8(ascii: "0"),
      bytes[1] == UInt8(ascii: "~")
    else { return false }
    return bytes.dropFirst(2).allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
        UInt8(ascii: "="):
        true
      default: false
      }
    }
  }

  /// `0~` + base64url(BLAKE2b-512 of the stored bytes).
  static func contentID(of stored: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: 64)
    var length: UInt32 = 0
    let status = stored.withUnsafeBytes { input in
      digest.withUnsafeMutableBufferPointer { output in
        EVP_Digest(
          input.baseAddress, input.count, output.baseAddress, &length, EVP_blake2b512(), nil)
      }
    }
    precondition(status == 1 && length == 64, "libcrypto could not compute BLAKE2b-512")
    let base64 = Data(digest).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    return "0~" + base64
  }

  private func checkContentID(_ id: String, of stored: [UInt8]) throws(ImportError) {
    guard Self.contentID(of: stored) == id else {
      throw failure(
        id, "its bytes do not match its content id (BLAKE2b-512): corrupt or altered")
    }
  }

  private func decompress(_ stored: [UInt8], id: String, limit: Int) throws(ImportError)
    -> [UInt8]
  {
    guard Zstd.isFrame(stored) else { return stored }
    do {
      return try Zstd.decompress(stored, limit: limit)
    } catch {
      switch error {
      case .overLimit(let size):
        throw failure(
          id, "decompresses to \(size) bytes or more, over the \(limit)-byte limit (a zstd bomb?)")
      case .damaged(let reason):
        throw failure(id, "damaged zstd data (\(reason)): a truncated or corrupt copy")
      }
    }
  }

  private func failure(_ id: String, _ reason: String) -> ImportError {
    ImportError(container: bundle.path, object: "Data/data.\(id)", reason: reason)
  }
}
