import Foundation
import ReferenceContracts
import ReferenceImageCore

extension MergePlan {
  /// One destination path.
  ///
  /// Rule: most items chose an image the plan read, and hold its source's list
  /// (`SourceImages`, shared by the source's items) and its index there, not a copy of the
  /// image; the few that have more (an update's replaced digest kept apart, rivals and the
  /// like) hold an object with the list and the rest (`Anchor`). Cost: 16 bytes an item
  /// (a test asserts it), less in an `ItemList`. The image's values (`path`, `chosen`,
  /// `after`) are made from the source's list on each call, not stored: `path` finds its
  /// pool's run by binary search and allocates a string, so loops over many items compare
  /// paths with `pathOrder(to:)` and `pathPrecedes(_:)` instead.
  public struct Item: Sendable {
    /// The chosen image's source's list, and what else the item has.
    private(set) var anchor: Anchor
    /// The chosen image's index in its source's list.
    let imageIndex: Int32
    /// The decision.
    public var outcome: Outcome

    /// An item from its parts, as `ItemList` keeps them.
    init(anchor: Anchor, imageIndex: Int32, outcome: Outcome) {
      self.anchor = anchor
      self.imageIndex = imageIndex
      self.outcome = outcome
    }

    /// An item from values: orphans, conflicts, unstable renders, redundant variants.
    init(
      path: String, outcome: Outcome, chosen: Candidate?, rivals: [Candidate],
      conflictingPixels: Int?, resolvedByNewest: Bool
    ) {
      imageIndex = 0
      self.outcome = outcome
      anchor = .details(
        Details(
          list: nil, path: path, chosen: chosen, rivals: rivals,
          conflictingPixels: conflictingPixels, resolvedByNewest: resolvedByNewest,
          replaced: nil))
    }

    /// An item whose chosen image is the one at `place` in `read`.
    init(
      outcome: Outcome, read: ReadImages, place: Place, rivals: [Candidate],
      resolvedByNewest: Bool, replaced: SHA256Digest?
    ) {
      let list = read.lists[Int(place.source)]
      imageIndex = place.image
      self.outcome = outcome
      if !rivals.isEmpty || resolvedByNewest {
        anchor = .details(
          Details(
            list: list, path: nil, chosen: nil, rivals: rivals, conflictingPixels: nil,
            resolvedByNewest: resolvedByNewest, replaced: replaced))
      } else if let replaced, !list.images.path(at: Int(place.image)).keepReplaced(replaced) {
        anchor = .replaced(Replaced(list: list, digest: replaced))
      } else {
        // An update's replaced digest, when there is one, is kept beside its image's record.
        anchor = .image(list)
      }
    }

    /// The chosen image's source's list, or nil for an item built from values.
    private var list: SourceImages? {
      switch anchor {
      case .image(let list): list
      case .replaced(let replaced): replaced.list
      case .details(let details): details.list
      }
    }

    /// The chosen image's source's list, for an item that holds nothing else (`Anchor.image`).
    var imageList: SourceImages? {
      if case .image(let list) = anchor { list } else { nil }
    }

    /// The details, when the item has more than a replaced digest.
    private var details: Details? {
      if case .details(let details) = anchor { details } else { nil }
    }

    /// The package-relative path, made from the pool on each call (see `Item`).
    public var path: String { pooledPath?.string ?? details?.path ?? "" }
    /// The chosen image's path, for an item that holds its place.
    private var pooledPath: PooledPath? { list?.images.path(at: Int(imageIndex)) }
    /// The path's order against a sought one (as `path` compares with it), without making
    /// the path's string when it is pooled.
    func pathOrder(to sought: SoughtPath) -> Int {
      guard let pooledPath else { return sought.order(of: details?.path ?? "") }
      return pooledPath.order(to: sought)
    }
    /// Whether this item's path sorts before another's.
    func pathPrecedes(_ other: Item) -> Bool {
      if let pooledPath, let other = other.pooledPath { return pooledPath < other }
      return path < other.path
    }
    /// The candidate that will be written (added, updated), or that matched (unchanged).
    public var chosen: Candidate? {
      guard let list else { return details?.chosen }
      return Candidate(sourceIndex: Int(list.source), image: list.images[Int(imageIndex)])
    }
    /// Every candidate with distinct pixels, for conflicts (newest first).
    public var rivals: [Candidate] { details?.rivals ?? [] }
    /// For conflicts: how many pixels differ between the first two rivals (nil if sizes
    /// differ).
    public var conflictingPixels: Int? {
      get { details?.conflictingPixels }
      set {
        anchor = .details(
          Details(details, list: list, conflictingPixels: newValue, replaced: replaced))
      }
    }
    /// Whether the sources disagreed and `--on-conflict newest` picked one.
    public var resolvedByNewest: Bool { details?.resolvedByNewest ?? false }
    /// The pixel digest of the destination file the decision was made on: the chosen image's
    /// for unchanged paths, the file's own for updated ones (nil when it holds no image, such
    /// as a Git LFS pointer), nil for added paths, conflicts, unstable renders and orphans.
    /// Approvals are checked against it, and the review shows it as the "before" pixels.
    public var before: SHA256Digest? {
      switch outcome {
      case .unchanged: after
      case .updated: replaced
      case .added, .conflict, .orphan, .unstable, .redundant: nil
      }
    }
    /// For updated paths, the destination's pixels (see `before`).
    private var replaced: SHA256Digest? {
      switch anchor {
      case .image(let list):
        outcome == .updated ? list.images.path(at: Int(imageIndex)).replaced : nil
      case .replaced(let replaced): replaced.digest
      case .details(let details): details.replaced
      }
    }
    /// The pixel digest the decision lands or keeps: the chosen image's.
    public var after: SHA256Digest? {
      guard let list else { return details?.chosen?.image.pixelSHA256 }
      return list.images.path(at: Int(imageIndex)).record.pixels
    }
  }

  /// An item's chosen image's source's list, and what else it has, by reference: one word in
  /// the item.
  enum Anchor: Sendable {
    /// The usual added or unchanged path.
    case image(SourceImages)
    /// An updated path with nothing else: the destination's pixel digest.
    case replaced(Replaced)
    /// Everything else.
    case details(Details)
  }

  /// An update's chosen image's source's list and its replaced pixel digest (`Item.before`).
  final class Replaced: Sendable {
    let list: SourceImages
    let digest: SHA256Digest

    init(list: SourceImages, digest: SHA256Digest) {
      self.list = list
      self.digest = digest
    }
  }

  /// What few items have beyond their chosen image, shared by reference.
  final class Details: Sendable {
    /// The chosen image's source's list, or nil for an item built from values.
    let list: SourceImages?
    /// The path of an item built from values.
    let path: String?
    /// The chosen candidate of an item built from values.
    let chosen: Candidate?
    let rivals: [Candidate]
    let conflictingPixels: Int?
    let resolvedByNewest: Bool
    /// For updated paths, the destination's pixels (see `Item.before`).
    let replaced: SHA256Digest?

    init(
      list: SourceImages?, path: String?, chosen: Candidate?, rivals: [Candidate],
      conflictingPixels: Int?, resolvedByNewest: Bool, replaced: SHA256Digest?
    ) {
      self.list = list
      self.path = path
      self.chosen = chosen
      self.rivals = rivals
      self.conflictingPixels = conflictingPixels
      self.resolvedByNewest = resolvedByNewest
      self.replaced = replaced
    }

    /// A copy of `details` (or empty ones) with another count of conflicting pixels.
    convenience init(
      _ details: Details?, list: SourceImages?, conflictingPixels: Int?, replaced: SHA256Digest?
    ) {
      self.init(
        list: list, path: details?.path, chosen: details?.chosen, rivals: details?.rivals ?? [],
        conflictingPixels: conflictingPixels,
        resolvedByNewest: details?.resolvedByNewest ?? false, replaced: replaced)
    }
  }
}
