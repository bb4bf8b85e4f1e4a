import Foundation
import ReferenceImageCore
import ReferenceMerge

/// One card of the review page: what the page shows for one added, updated, conflicting or
/// orphaned path. A value computed by `ReviewCardMaker` and written by `ReviewData`.
struct ReviewCard: Sendable {
  /// An image file of the report, by its name inside `images/`.
  struct Image: Sendable, Equatable {
    var file: String
    var width: Int
    var height: Int
  }

  /// One source's version of a conflicting path.
  struct Rival: Sendable {
    var label: String
    var image: Image
  }

  /// The file a card's "before" image is: the path's own current file (an update), or for a
  /// new variant file the fallback its variant used until now.
  struct ComparedFile: Sendable, Equatable {
    var path: String
    /// The variant whose file it is; nil for a base file.
    var variant: String?
    /// Whether it is a fallback of the card's variant rather than the card's own file.
    var isFallback: Bool
  }

  /// For an update of a variant file: the fallback its variant would use without the file, as
  /// the package holds it, shown beside before and after.
  struct FallbackImage: Sendable {
    var file: ComparedFile
    var image: Image
  }

  /// The numbers of comparing before and after (or the first two rivals).
  struct Comparison: Sendable {
    /// Nil for a size change, where no pixel count applies.
    var changedPixels: Int?
    var totalPixels: Int?
    var maxChannelDifference: Int?
    /// Boxes around the changed regions: x, y, width, height.
    var regions: [[Int]]
    /// What kind of change each region is, one per box.
    var kinds: [ChangedRegion] = []
    /// What the change is, without where; nil when nothing changed.
    var fingerprint: ChangeFingerprint?
  }

  var id: Int
  var path: String
  var outcome: MergePlan.Outcome
  /// The variant whose file the path is (`name@@variant.png`); nil for a base file, and for
  /// every file of a package that declares no variants.
  var variant: String?
  /// What "before" shows, when it shows a file of the package: nil for added base files,
  /// conflicts, unstable renders, orphans and redundant files.
  var comparedWith: ComparedFile?
  /// An updated variant file's fallback, shown too; nil for every other card.
  var fallback: FallbackImage?
  /// `before->after` pixel digests, for updated cards: the same change is decided together.
  var group: String?
  /// The pixel digests (SHA-256 hex) of the reference shown as before and of the new image,
  /// for added and updated cards: the page's export binds each accepted path to them.
  var beforePixels: String?
  var afterPixels: String?
  var before: Image?
  var after: Image?
  var difference: Image?
  var comparison: Comparison?
  var meta: [String]
  var rivals: [Rival] = []

  /// Every image file the card refers to.
  var files: [String] {
    [before, after, difference, fallback?.image].compactMap { $0?.file }
      + rivals.map(\.image.file)
  }
}
