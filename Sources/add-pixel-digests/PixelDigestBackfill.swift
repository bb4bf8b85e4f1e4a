import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Adds the `riDG` pixel digest (see `PNGPixelDigest`) to reference PNGs written before the
/// package stored one, or replaces a version 1 digest with the current version, without
/// changing a pixel: the chunk is inserted before the first IDAT
/// and every other byte of the file is kept, the image data included. The file is decoded once,
/// to compute the pixel hash.
///
/// The work is split as everywhere in this package: `plan` decides, per file, from its bytes
/// alone; `apply` writes the files that need it; the command prints the result.
public enum PixelDigestBackfill {
  /// What one file needs.
  public enum Decision: Sendable, Equatable {
    /// The file already carries a valid digest of the current version; it is left alone.
    case hasDigest
    /// The file lacks a valid digest, or has one of version 1; these are its new bytes.
    case needsDigest(newBytes: [UInt8])
    /// The file could not be read or decoded; it is left alone.
    case unreadable(reason: String)
  }

  /// One file and its decision.
  public struct Item: Sendable, Equatable {
    /// The PNG file.
    public var file: URL
    /// What it needs.
    public var decision: Decision
  }

  /// Decides what each file needs, reading and decoding on every core.
  /// - Parameter files: PNG files.
  /// - Returns: One item per file, in the same order.
  public static func plan(_ files: [URL]) -> [Item] {
    var decisions = [Decision?](repeating: nil, count: files.count)
    decisions.withUnsafeMutableBufferPointer { buffer in
      // Each iteration writes only its own slot.
      nonisolated(unsafe) let slots = buffer
      DispatchQueue.concurrentPerform(iterations: files.count) { index in
        slots[index] = decision(for: files[index])
      }
    }
    return zip(files, decisions).map { Item(file: $0, decision: $1!) }
  }

  /// What one file needs.
  /// - Parameter file: A PNG file.
  /// - Returns: The decision.
  public static func decision(for file: URL) -> Decision {
    do {
      let bytes = try FileSystem.read(file)
      return decision(forPNG: bytes)
    } catch {
      return .unreadable(reason: error.description)
    }
  }

  /// What a PNG file's bytes need.
  /// - Parameter bytes: The file's bytes.
  /// - Returns: The decision.
  public static func decision(forPNG bytes: [UInt8]) -> Decision {
    // A version 1 digest is trusted but checked with SHA-256, so verify decodes such a file;
    // it is replaced by the current version, which verify checks at the cost of a fast hash.
    if PNGPixelDigest.read(fromPNG: bytes)?.pixelXXH3 != nil { return .hasDigest }
    do {
      let image = try PNGDecoder().decode(bytes)
      let pixelSHA256 = SHA256Digest(of: image.pixels)
      guard
        let newBytes = PNGPixelDigest.inserting(pixelSHA256: pixelSHA256, of: image, into: bytes)
      else {
        return .unreadable(reason: "the PNG's chunks could not be walked")
      }
      return .needsDigest(newBytes: newBytes)
    } catch {
      return .unreadable(reason: error.description)
    }
  }

  /// Writes the files that need a digest, each atomically.
  /// - Parameter items: The plan.
  /// - Returns: The files that could not be written, with the reason; they are unchanged.
  public static func apply(_ items: [Item]) -> [(file: URL, reason: String)] {
    var failures: [(file: URL, reason: String)] = []
    for item in items {
      guard case .needsDigest(let newBytes) = item.decision else { continue }
      do {
        try FileSystem.writeAtomically(newBytes, to: item.file)
      } catch {
        failures.append((item.file, error.description))
      }
    }
    return failures
  }
}
