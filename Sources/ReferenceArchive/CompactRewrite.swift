import Foundation
import ReferenceImageCore

/// Rewrites reference PNGs in the compact form (`PNGEncoder.Setting.compact`) without changing
/// a pixel: each file is decoded, encoded compactly, and the new bytes decoded again and
/// compared with the old pixels before the file is replaced atomically. A file is replaced only
/// when the compact form is smaller, so a second run changes nothing.
///
/// Files without a valid pixel digest were written by another tool (or by a version of this
/// package before the digest): they may carry chunks someone wants (a colour profile, text),
/// so they are rewritten only when the caller asks. Files of 16-bit samples are never
/// rewritten: the package reads their high bytes, and an 8-bit file would drop the low ones.
public enum CompactRewrite {
  /// What happened to one file (or, in a dry run, would happen).
  public enum Outcome: Sendable, Equatable {
    /// Replaced by its compact form, `after` bytes instead of `before`.
    case compacted(before: Int, after: Int)
    /// The compact form is not smaller; the file is untouched.
    case alreadyCompact(bytes: Int)
    /// No valid pixel digest, so written by another tool; untouched.
    case writtenByAnotherTool
    /// 16-bit samples, which an 8-bit file would truncate; untouched.
    case sixteenBit
    /// Could not be read, decoded, checked or written; untouched.
    case failed(reason: String)
  }

  /// One file and its outcome.
  public struct Item: Sendable, Equatable {
    /// The PNG file.
    public var file: URL
    /// What happened to it.
    public var outcome: Outcome
  }

  /// Compacts every file, on every core, one file in memory per core.
  /// - Parameters:
  ///   - files: PNG files (see `FileSystem.pngFiles(in:)`).
  ///   - includingOtherTools: Whether to rewrite files without a pixel digest too.
  ///   - dryRun: Decide and measure only; write nothing.
  /// - Returns: One item per file, in the same order.
  public static func run(_ files: [URL], includingOtherTools: Bool, dryRun: Bool) -> [Item] {
    var outcomes = [Outcome?](repeating: nil, count: files.count)
    outcomes.withUnsafeMutableBufferPointer { buffer in
      // Each iteration writes only its own slot.
      nonisolated(unsafe) let slots = buffer
      DispatchQueue.concurrentPerform(iterations: files.count) { index in
        slots[index] = compact(
          files[index], includingOtherTools: includingOtherTools, dryRun: dryRun)
      }
    }
    return zip(files, outcomes).map { Item(file: $0, outcome: $1!) }
  }

  /// Compacts one file.
  public static func compact(_ file: URL, includingOtherTools: Bool, dryRun: Bool) -> Outcome {
    let bytes: [UInt8]
    do {
      bytes = try FileSystem.read(file)
    } catch {
      return .failed(reason: error.description)
    }
    let (outcome, newBytes) = decision(forPNG: bytes, includingOtherTools: includingOtherTools)
    guard let newBytes, !dryRun else { return outcome }
    guard access(file.path, W_OK) == 0 else {
      return .failed(reason: "the file is not writable; make it writable to compact it")
    }
    do {
      try FileSystem.writeAtomically(newBytes, to: file)
    } catch {
      return .failed(reason: error.description)
    }
    return outcome
  }

  /// What a PNG file's bytes become.
  /// - Parameters:
  ///   - bytes: The file's bytes.
  ///   - includingOtherTools: Whether a file without a pixel digest is rewritten.
  /// - Returns: The outcome, and the new bytes when the file is to be replaced.
  public static func decision(
    forPNG bytes: [UInt8], includingOtherTools: Bool
  ) -> (outcome: Outcome, newBytes: [UInt8]?) {
    let image: RGBAImage
    do {
      image = try PNGDecoder().decode(bytes)
    } catch {
      return (.failed(reason: error.description), nil)
    }
    // IHDR's bit depth, right after the signature, the chunk's length and type, width, height.
    if bytes[24] == 16 { return (.sixteenBit, nil) }
    if !includingOtherTools, PNGPixelDigest.read(fromPNG: bytes) == nil {
      return (.writtenByAnotherTool, nil)
    }
    let compact: [UInt8]
    do {
      compact = try PNGEncoder(setting: .compact).encode(image)
    } catch {
      return (.failed(reason: error.description), nil)
    }
    guard compact.count < bytes.count else { return (.alreadyCompact(bytes: bytes.count), nil) }
    guard pixelsAreEqual(compact, image) else {
      return (
        .failed(reason: "its compact form decoded to other pixels (a bug: please report it)"), nil
      )
    }
    return (.compacted(before: bytes.count, after: compact.count), compact)
  }

  /// Whether `png` decodes to `image` through the fast reader and through libspng alone.
  private static func pixelsAreEqual(_ png: [UInt8], _ image: RGBAImage) -> Bool {
    guard let fast = try? PNGDecoder().decode(png),
      let libspng = try? PNGDecoder().decode(png, commonCase: false)
    else { return false }
    return fast == image && libspng == image
  }
}
