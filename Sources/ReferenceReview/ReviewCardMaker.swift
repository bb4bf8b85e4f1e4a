import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge

/// Makes one card: copies the before and after PNG bytes into the report's `images/` folder
/// as they are (never decoded and encoded again), and for a change decodes both (into the
/// memory of images earlier cards are done with), compares them, and writes the difference
/// image and its changed regions. Safe to run for several cards at once: each card writes only
/// its own files.
struct ReviewCardMaker: Sendable {
  /// What one card is made from.
  struct Job: Sendable {
    var id: Int
    var item: MergePlan.Item
    /// Provenance lines.
    var meta: [String]
    /// The archive entry's bytes, for added and updated paths.
    var after: [UInt8]?
    /// For conflicts: the rivals' files, already written by the reading pass.
    var rivals: [ReviewCard.Rival] = []
    /// For conflicts: rivals that recorded the path unchanged, whose image is the current
    /// reference's when it still holds `pixels`.
    var rivalsSeeingTheReference: [ReferenceRival] = []
  }

  /// A rival that archived no image because it rendered what the reference holds.
  struct ReferenceRival: Sendable {
    var rival: ReviewCard.Rival
    var pixels: SHA256Digest
  }

  /// The report's `images/` folder.
  let images: ReportImages
  /// Where the current references come from.
  let reader: ReviewImages
  /// The package's variants, whose new files are shown beside their fallbacks.
  let variants: ReferenceVariants?
  /// Keeps the memory of decoded images the cards are done with, for the next decodes.
  private var recycler: PNGDecoder.Recycler { .shared }

  /// Makes the card of a job.
  /// - Throws: `ReviewError.io` when an image file cannot be written.
  func make(_ job: Job) throws(ReviewError) -> ReviewCard {
    var card = ReviewCard(
      id: job.id, path: job.item.path, outcome: job.item.outcome,
      variant: VariantPath.variant(of: job.item.path, declared: variants),
      meta: job.meta, rivals: job.rivals)
    switch job.item.outcome {
    case .added:
      try addAfter(job, to: &card)
      try addFallbackAndDifference(job, to: &card)
    case .updated:
      try addAfter(job, to: &card)
      try addBeforeAndDifference(job, to: &card)
      try addFallback(job, to: &card)
    case .orphan, .redundant:
      card.before = try copyCurrentFile(job)
    case .conflict:
      card.before = try copyCurrentFile(job)
      card.rivals += try referenceRivals(job)
      try addRivalDifference(card.rivals, id: job.id, to: &card)
    case .unstable:
      // The two renders take the places of before and after, so every comparison mode shows
      // how the runs differ.
      if job.rivals.count >= 2 {
        card.before = job.rivals[0].image
        card.after = job.rivals[1].image
      }
      try addRivalDifference(job.rivals, id: job.id, to: &card)
    case .unchanged:
      break
    }
    return card
  }

  private func addAfter(_ job: Job, to card: inout ReviewCard) throws(ReviewError) {
    guard let bytes = job.after, let chosen = job.item.chosen?.image else {
      card.meta.append("the new image could not be read again from its source")
      return
    }
    let file = ReportImages.name(card: job.id, "after")
    try images.write(bytes, as: file)
    card.after = ReviewCard.Image(file: file, width: chosen.width, height: chosen.height)
    card.afterPixels = chosen.pixelSHA256.hex
  }

  private func addBeforeAndDifference(_ job: Job, to card: inout ReviewCard) throws(ReviewError) {
    guard let before = reader.decodedReference(at: job.item.path) else {
      card.meta.append("the current file could not be read")
      return
    }
    // The plan's own "before", which approvals are checked against when they land: the pixels
    // are identified once, by the planner, not again here.
    guard let beforeImage = before.image,
      let beforeDigest = (job.item.before ?? before.pixelSHA256)?.hex
    else {
      card.meta.append("the current file is not a PNG image that decodes")
      return
    }
    defer { recycler.recycle(beforeImage) }
    card.before = try copy(
      before.bytes, as: ReportImages.name(card: job.id, "before"), size: beforeImage.size)
    card.beforePixels = beforeDigest
    card.comparedWith = .init(path: job.item.path, variant: card.variant, isFallback: false)
    if let chosen = job.item.chosen {
      card.group = "\(beforeDigest)->\(chosen.image.pixelSHA256.hex)"
    }
    try addDifference(job, from: beforeImage, to: &card)
  }

  /// Compares the new image with `reference` by the test's comparison, and adds the figures,
  /// the difference image and the changed regions to the card.
  private func addDifference(_ job: Job, from reference: RGBAImage, to card: inout ReviewCard)
    throws(ReviewError)
  {
    guard let after = job.after, let afterImage = try? recycler.decode(after) else { return }
    defer { recycler.recycle(afterImage) }
    let (meta, difference, comparison) = try compare(
      afterImage, to: reference, file: ReportImages.name(card: job.id, "difference"),
      by: job.item.chosen?.image.failedComparison?.comparison)
    card.meta.insert(meta, at: 0)
    card.difference = difference
    card.comparison = comparison
  }

  /// For a new variant file: the fallback its platform used until now, as the package holds it,
  /// and the difference, so a reviewer sees what the variant's own file changes. Nothing for
  /// other added paths.
  private func addFallbackAndDifference(_ job: Job, to card: inout ReviewCard)
    throws(ReviewError)
  {
    guard let (fallback, found) = firstFallback(of: job.item.path, reader.decodedReference(at:)),
      let fallbackImage = found.image
    else { return }
    defer { recycler.recycle(fallbackImage) }
    card.before = try copy(
      found.bytes, as: ReportImages.name(card: job.id, "before"), size: fallbackImage.size)
    card.comparedWith = fallback
    card.meta.append(
      "a new variant file: shown beside its fallback \(fallback.path), as the package holds it")
    try addDifference(job, from: fallbackImage, to: &card)
  }

  /// For an update of a variant file: the fallback its variant would use without the file, as
  /// the package holds it, copied beside before and after (never decoded).
  private func addFallback(_ job: Job, to card: inout ReviewCard) throws(ReviewError) {
    guard let (fallback, bytes) = firstFallback(of: job.item.path, reader.reference(at:)),
      let size = PNGHeader.size(of: bytes)
    else { return }
    card.fallback = .init(
      file: fallback,
      image: try copy(bytes, as: ReportImages.name(card: job.id, "fallback"), size: size))
  }

  /// The first file of a variant file's fallback chain that `read` finds in the package; nil for
  /// a base file, and when the chain holds no file.
  private func firstFallback<Found>(of path: String, _ read: (String) -> Found?)
    -> (ReviewCard.ComparedFile, Found)?
  {
    guard let variants, let split = VariantPath.split(path, declared: variants) else { return nil }
    for fallback in variants.chain(of: split.variant).dropFirst() {
      let path = VariantPath.path(of: split.basePath, variant: fallback)
      if let found = read(path) {
        return (.init(path: path, variant: fallback, isFallback: true), found)
      }
    }
    return nil
  }

  /// The rivals that recorded the path unchanged, each shown with a copy of the current file
  /// when its pixels are still the ones the rival saw.
  private func referenceRivals(_ job: Job) throws(ReviewError) -> [ReviewCard.Rival] {
    guard !job.rivalsSeeingTheReference.isEmpty,
      let current = reader.decodedReference(at: job.item.path)
    else { return [] }
    if let image = current.image { recycler.recycle(image) }
    guard let pixels = current.pixelSHA256 else { return [] }
    var rivals: [ReviewCard.Rival] = []
    for seeing in job.rivalsSeeingTheReference where seeing.pixels == pixels {
      try images.write(current.bytes, as: seeing.rival.image.file)
      rivals.append(seeing.rival)
    }
    return rivals
  }

  /// The difference of the first two rivals, read back from their files.
  private func addRivalDifference(_ rivals: [ReviewCard.Rival], id: Int, to card: inout ReviewCard)
    throws(ReviewError)
  {
    let decoded = rivals.prefix(2).compactMap { rival in
      images.read(rival.image.file).flatMap { try? recycler.decode($0) }
    }
    defer { for image in decoded { recycler.recycle(image) } }
    guard decoded.count == 2 else { return }
    let (meta, difference, comparison) = try compare(
      decoded[1], to: decoded[0], file: ReportImages.name(card: id, "difference"))
    card.meta.insert("between the first two: " + meta, at: 0)
    card.difference = difference
    card.comparison = comparison
  }

  /// Compares (by the test's comparison when the manifest recorded one), writes the difference
  /// image, and finds the changed regions.
  private func compare(
    _ image: RGBAImage, to reference: RGBAImage, file: String, by rule: ComparisonRecord? = nil
  ) throws(ReviewError) -> (String, ReviewCard.Image, ReviewCard.Comparison) {
    let difference: ReviewDifference
    do {
      difference = try ReviewDifference.make(image, reference, comparison: rule)
    } catch {
      throw .io(operation: "encode the difference image", path: file, message: "\(error)")
    }
    try images.write(difference.png, as: file)
    let found = difference.result.differences
    let identical = difference.result.outcome == .identical
    let comparison = ReviewCard.Comparison(
      changedPixels: identical ? 0 : found?.differingPixelCount,
      totalPixels: identical ? image.pixelCount : found?.totalPixelCount,
      maxChannelDifference: identical ? 0 : found?.largestChannelDifference,
      regions: difference.regions, kinds: difference.kinds, fingerprint: difference.fingerprint)
    let written = ReviewCard.Image(
      file: file, width: difference.size.width, height: difference.size.height)
    return (difference.result.description, written, comparison)
  }

  /// The current file copied into the report, when it is a PNG (orphans, conflicts).
  private func copyCurrentFile(_ job: Job) throws(ReviewError) -> ReviewCard.Image? {
    guard let bytes = reader.reference(at: job.item.path), let size = PNGHeader.size(of: bytes)
    else {
      return nil
    }
    return try copy(bytes, as: ReportImages.name(card: job.id, "before"), size: size)
  }

  /// Copies PNG bytes into a file of the report, byte for byte.
  private func copy(_ bytes: [UInt8], as file: String, size: ImageSize) throws(ReviewError)
    -> ReviewCard.Image
  {
    try images.write(bytes, as: file)
    return ReviewCard.Image(file: file, width: size.width, height: size.height)
  }
}

/// The size a PNG's header declares, read without decoding.
enum PNGHeader {
  /// The IHDR width and height; nil when the bytes do not start like a PNG.
  static func size(of bytes: [UInt8]) -> ImageSize? {
    PNGFileHeader.size(of: bytes).map { ImageSize(width: $0.width, height: $0.height) }
  }
}
