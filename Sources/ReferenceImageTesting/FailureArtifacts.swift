import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// The actual, reference and difference PNGs written when an image does not match, so a person
/// or CI can look at them: `<IMAGE_DIFF_DIR>/<reference path without .png>.actual.png`, and
/// likewise `.reference.png` and `.difference.png`. Under Swift Testing they are attachments
/// too, named by `FailureAttachmentName` so that `merge-refs` lands the actual render.
struct FailureArtifacts {
  let actual: URL
  let reference: URL?
  let difference: URL?

  /// Writes the artifacts and records them as attachments where the framework has them.
  /// `difference` is the comparison's difference image when the caller drew it already.
  static func write(
    actual image: RGBAImage, reference: RGBAImage?, comparison: ImageComparison,
    difference: RGBAImage? = nil, location: ReferenceLocation, testCase: String? = nil,
    folder: URL, context: TestContext
  ) throws(ReferenceImageError) -> FailureArtifacts {
    let suffix = testCase.map(caseSuffix)
    let base = folder.appendingPathComponent(
      String(location.relativePath.dropLast(4)) + (suffix ?? ""))
    // The attachment's name carries the reference path: Swift Testing writes attachments flat.
    func name(_ role: FailureAttachmentName.Role) -> String {
      FailureAttachmentName(referencePath: location.relativePath, caseSuffix: suffix, role: role)
        .fileName
    }
    let actualURL = base.appendingPathExtension("actual.png")
    try save(image, to: actualURL, attachingAs: name(.actual), context)
    guard let reference else {
      return FailureArtifacts(actual: actualURL, reference: nil, difference: nil)
    }
    let referenceURL = base.appendingPathExtension("reference.png")
    let differenceURL = base.appendingPathExtension("difference.png")
    try save(reference, to: referenceURL, attachingAs: name(.reference), context)
    try save(
      difference ?? comparison.differenceImage(image, reference), to: differenceURL,
      attachingAs: name(.difference), context)
    return FailureArtifacts(actual: actualURL, reference: referenceURL, difference: differenceURL)
  }

  /// The sentence listing the files.
  var summary: String {
    var files = ["actual \(actual.path)"]
    if let reference { files.append("reference \(reference.path)") }
    if let difference { files.append("difference \(difference.path)") }
    return "artifacts: " + files.joined(separator: ", ")
  }

  /// `[size=16]`: the case label made safe for a file name (no `/`, no control characters) and
  /// short enough for one (at most 80 bytes of UTF-8, then `…` and eight hex digits of the
  /// label's SHA-256, so that shortened labels stay distinct).
  static func caseSuffix(_ label: String) -> String {
    let safe = label.replacingOccurrences(of: " → ", with: "=").map { character -> String in
      character == "/" || character == "\\" || character.isNewline ? "_" : String(character)
    }.joined()
    var kept = ""
    for character in safe {
      guard kept.utf8.count + character.utf8.count <= 80 else {
        return "[\(kept)…\(SHA256.hex(Array(label.utf8)).prefix(8))]"
      }
      kept.append(character)
    }
    return "[\(kept)]"
  }

  private static func save(
    _ image: RGBAImage, to url: URL, attachingAs name: String, _ context: TestContext
  ) throws(ReferenceImageError) {
    do {
      let png = try PNGEncoder().encode(image)
      try FileSystem.writeAtomically(png, to: url)
      context.attach(png, named: name)
    } catch {
      throw .writeFailed(path: url.path, reason: "\(error)")
    }
  }
}
