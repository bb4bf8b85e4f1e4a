import Foundation
import ReferenceArchive
import ReferenceImageCore

/// The low-level pieces behind `assertImage`, for people building their own helpers.
public enum ReferenceImages {
  /// The generation mode in effect here: the one set by `withReferenceImages(mode:)` or the
  /// `.referenceImages(mode:)` trait around the caller, else `IMAGE_GENERATION_MODE`.
  public static var mode: GenerationMode {
    ReferenceImageSettings.current.mode ?? ImageCoordinator.shared.environment.mode
  }

  /// Whether this run records images (`all`, `missing` or `failed`).
  public static var shouldStoreNewImages: Bool { mode.storesImages }

  /// Loads a reference image: its PNG, or the stored PNG its pointer names.
  /// - Parameter location: Where the reference lives.
  /// - Returns: The decoded image, or nil when no file exists there.
  /// - Throws: `ReferenceImageError.gitLFSPointer` when the file is a Git LFS pointer that was
  ///   never fetched, `.unreadableReference` when it exists but is not a valid PNG or cannot be
  ///   read.
  public static func loadReference(at location: ReferenceLocation) throws(ReferenceImageError)
    -> RGBAImage?
  {
    guard let file = try ReferenceFile.read(at: location) else { return nil }
    return try decodeReference(try file.pngBytes(at: location), at: location)
  }

  /// The reference file's bytes, or nil when no file exists there.
  static func referenceBytes(at location: ReferenceLocation) throws(ReferenceImageError)
    -> [UInt8]?
  {
    let url = location.url
    do {
      return try FileSystem.readIfPresent(url)
    } catch {
      throw .unreadableReference(path: url.path, reason: "\(error)")
    }
  }

  /// Decodes a reference file's bytes.
  static func decodeReference(_ bytes: [UInt8], at location: ReferenceLocation)
    throws(ReferenceImageError) -> RGBAImage
  {
    do {
      return try PNGDecoder.Recycler.shared.decode(bytes)
    } catch .gitLFSPointer {
      throw .gitLFSPointer(path: location.url.path)
    } catch {
      throw .unreadableReference(path: location.url.path, reason: "\(error)")
    }
  }

  /// Stores an image in this run's archive, to land at `location` after `merge-refs`.
  /// - Parameters:
  ///   - image: The image.
  ///   - location: Its reference location.
  ///   - test: The producing test, for the manifest.
  /// - Throws: `ReferenceImageError.duplicateImage` when the location was stored before in this
  ///   run, `.writeFailed` when the staging folder cannot be created.
  public static func saveReference(
    _ image: RGBAImage, at location: ReferenceLocation, test: String
  ) throws(ReferenceImageError) {
    ImageCoordinator.shared.registerIfNeeded()
    try ImageCoordinator.shared.store(image, at: location, test: test)
  }
}
