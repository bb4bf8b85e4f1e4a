/// Why an image assertion or a low-level reference operation could not do its job.
public enum ReferenceImageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The image name is empty, absolute, or contains `.`/`..` components.
  case invalidName(String)
  /// No `Package.swift` was found above the test file.
  case noPackageRoot(filePath: String)
  /// A reference folder override points outside the package.
  case outsidePackage(path: String, packageRoot: String)
  /// The same reference path was stored twice in one run.
  case duplicateImage(path: String, firstTest: String, secondTest: String)
  /// Two tests, or two cases of one parameterized test, use one reference path: a reference has
  /// one owner.
  case sharedReference(path: String, first: String, second: String, casesOfOneTest: Bool = false)
  /// The reference exists but cannot be read or decoded.
  case unreadableReference(path: String, reason: String)
  /// The reference is a Git LFS pointer file: Git LFS has not fetched the image.
  case gitLFSPointer(path: String)
  /// A file could not be written.
  case writeFailed(path: String, reason: String)
  /// A reference is both a PNG and a pointer to a stored one.
  case referenceBesidePointer(path: String)
  /// The render differs from a pointer's pixels, and the PNG the pointer names could be had
  /// neither from the local cache nor from the store.
  case referenceObjectUnavailable(pointer: String, reason: String)
  /// An image file to compare (a renderer's PNG) cannot be read or decoded.
  case unreadableImage(path: String, reason: String)

  public var description: String {
    switch self {
    case .invalidName(let name):
      return "invalid image name '\(name)': use a relative name without '.' or '..' parts"
    case .noPackageRoot(let filePath):
      return "no Package.swift found in any folder above \(filePath); references are located "
        + "relative to the package root"
    case .outsidePackage(let path, let root):
      return "reference path \(path) lies outside the package at \(root); move the reference "
        + "folder inside the package"
    case .duplicateImage(let path, let first, let second):
      return "\(path) was stored twice in this run, by \(first) and by \(second); give each "
        + "image a unique name"
    case .sharedReference(let path, let first, let second, false):
      return "\(path) is the reference of two tests, \(first) and \(second); a reference has "
        + "one owner: give each test's image its own name"
    case .sharedReference(let path, let first, let second, true):
      return "\(path) is the reference of two cases of one parameterized test, \(first) and "
        + "\(second); a reference has one owner: name each case's image after its arguments, "
        + "as in `named: \"dot-\\(size)\"`"
    case .unreadableReference(let path, let reason):
      return "reference \(path) is unreadable: \(reason); delete it and run with "
        + "IMAGE_GENERATION_MODE=missing to record it again"
    case .gitLFSPointer(let path):
      return "reference \(path) is a Git LFS pointer file, not the image: Git LFS has not "
        + "fetched it; run `git lfs pull` (after `git lfs install` if Git LFS is new on this "
        + "machine) and run the tests again"
    case .writeFailed(let path, let reason):
      return "could not write \(path): \(reason)"
    case .referenceBesidePointer(let path):
      return "reference \(path) is both a PNG and a pointer (\(path).ref); keep one: `git rm` "
        + "the other"
    case .referenceObjectUnavailable(let pointer, let reason):
      return "the render differs from the pixels \(pointer) names, and the reference it points "
        + "to could not be fetched to compare: \(reason); give this job read access to the "
        + "store named in ReferenceStore.json, or fill the cache first with "
        + "`swift run reference-store fetch`"
    case .unreadableImage(let path, let reason):
      return "could not read the image \(path): \(reason); check that the renderer wrote a PNG "
        + "there before the assertion"
    }
  }
}
