import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

// The rules every image entry follows, and the image each entry gives.
extension InventoryScanner {
  /// The rules every image entry follows: a safe path, a regular file, a `.png` name.
  func check(_ entry: ArchiveEntry, source: MergeSource) throws(MergeError) {
    if let reason = EntryPath.validate(entry.path) { throw refuse(source, entry.path, reason) }
    try checkKind(entry, source: source)
  }

  /// The rules beside the path's: a regular file with a `.png` name.
  func checkKind(_ entry: ArchiveEntry, source: MergeSource) throws(MergeError) {
    switch entry.kind {
    case .regularFile: break
    case .symbolicLink: throw refuse(source, entry.path, "it is a symbolic link")
    case .hardLink: throw refuse(source, entry.path, "it is a hard link")
    case .directory, .special: throw refuse(source, entry.path, "it is a device or special file")
    }
    guard entry.path.lowercased().hasSuffix(".png") else {
      throw refuse(source, entry.path, "not a PNG (the manifest is the only other entry allowed)")
    }
  }

  func headerSize(
    _ entry: ArchiveEntry, source: MergeSource
  ) throws(MergeError) -> (width: Int, height: Int) {
    do { return try decoder.size(of: entry.bytes) } catch {
      throw refuse(source, entry.path, "not a valid PNG: \(error)")
    }
  }

  /// An image whose bytes must be exactly those its manifest record hashed; the record's pixel
  /// hash then holds without decoding.
  func vouched(
    _ path: String, pngSHA256: SHA256Digest, size: (width: Int, height: Int),
    source: MergeSource, record: ArchiveManifest.Image
  ) throws(MergeError) -> SourceInventory.Image {
    guard record.pngSHA256 == pngSHA256 else {
      throw refuse(source, path, "its bytes do not match its manifest record (corrupt?)")
    }
    guard size == (record.width, record.height) else {
      throw refuse(source, path, "its size does not match its manifest record")
    }
    return .init(
      path: path, pngSHA256: pngSHA256, pixelSHA256: record.pixelSHA256,
      width: size.width, height: size.height, test: record.owner)
  }

  func image(
    _ entry: ArchiveEntry, pngSHA256: SHA256Digest, source: MergeSource,
    record: ArchiveManifest.Image?
  ) throws(MergeError) -> SourceInventory.Image {
    if let record {
      // The header is still checked, cheaply.
      return try vouched(
        entry.path, pngSHA256: pngSHA256, size: try headerSize(entry, source: source),
        source: source, record: record)
    }
    let pixels: RGBAImage
    do { pixels = try decoder.decode(entry.bytes) } catch {
      throw refuse(source, entry.path, "not a valid PNG: \(error)")
    }
    return .init(
      path: entry.path, pngSHA256: pngSHA256, pixelSHA256: SHA256Digest(of: pixels.pixels),
      width: pixels.width, height: pixels.height, test: nil)
  }
}
