/// What a change is, without where it happened to one image: references with the same
/// fingerprint changed the same way ("recoloured #16A34A → #9333EA"), beyond byte-identical
/// pairs, and a reviewer can decide them together.
///
/// Made of the kinds of a pair's regions with their parameters: the offset of a move, the main
/// colour mapping of a recolour, both sizes of a resize. Noise is one group whatever its largest
/// difference. Kinds without parameters (added, removed, changed) say nothing alone, so for them
/// the pixels involved count too: the box and the bytes of both images inside it, so that only
/// the same legend entry added at the same place groups.
public struct ChangeFingerprint: Sendable, Hashable, CustomStringConvertible {
  /// A short digest of the parts, for grouping.
  public var key: String
  /// The distinct kinds in words, for people: "moved by (2, 1); recoloured #16A34A → #9333EA".
  public var label: String

  public var description: String { label }

  /// The fingerprint of a classified pair; nil when no region changed.
  /// - Parameters:
  ///   - regions: The pair's regions (`ChangeClassifier`).
  ///   - image: The image under test (the new one).
  ///   - reference: Its reference (the old one).
  /// - Returns: The fingerprint.
  public static func of(_ regions: [ChangedRegion], image: RGBAImage, reference: RGBAImage)
    -> ChangeFingerprint?
  {
    guard !regions.isEmpty else { return nil }
    var parts = Set<String>()
    var labels = Set<String>()
    for region in regions {
      switch region.kind {
      case .moved, .recoloured, .resized:
        parts.insert(region.kind.description)
        labels.insert(region.kind.description)
      case .antiAliasingOrNoise:
        parts.insert("anti-aliasing or noise only")
        labels.insert("anti-aliasing or noise only")
      case .added, .removed, .changed:
        parts.insert(
          "\(region.kind.name) \(region.box) "
            + pixelDigest(region.box, image: image, reference: reference))
        labels.insert("\(region.kind.name) at \(region.box)")
      }
    }
    let key = SHA256.hex(Array(parts.sorted().joined(separator: "\n").utf8))
    return ChangeFingerprint(
      key: String(key.prefix(32)), label: labels.sorted().joined(separator: "; "))
  }

  /// The XXH3-128 of both images' bytes inside the box (the common area's part of it), row by
  /// row without copying: a grouping key, not an identity (approvals bind to the SHA-256 pixel
  /// digests), and a tenth of SHA-256's cost on a large region.
  private static func pixelDigest(_ box: PixelBox, image: RGBAImage, reference: RGBAImage)
    -> String
  {
    let hasher = XXH3Digest.Hasher()
    for picture in [reference, image] {
      let maxX = min(box.maxX, picture.width - 1)
      let maxY = min(box.maxY, picture.height - 1)
      guard box.minX <= maxX, box.minY <= maxY else { continue }
      picture.pixels.withUnsafeBytes { bytes in
        for y in box.minY...maxY {
          let start = (y * picture.width + box.minX) * 4
          let end = (y * picture.width + maxX + 1) * 4
          hasher.update(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        }
      }
    }
    return hasher.finish().description
  }
}
