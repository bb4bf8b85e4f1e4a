import Foundation

extension SourceInventory {
  /// A source's images, sorted by path.
  ///
  /// Once a source is read, its images' paths are its `PathPool`'s, in the pool's order, so
  /// an image is its pool and its position: the list keeps of each only its two flags and
  /// which of the source's origins it has (3 bytes), and makes the image when it is asked.
  /// Kept as images, they would cost a merge of many archives 24 bytes each, a large part of a
  /// fleet rerun's heap.
  public struct ImageList: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    private enum Storage: Sendable {
      /// Images as they are: a source's before it is pooled, and tests'.
      case held([Image])
      /// Images whose paths are `pool`'s, in order.
      case pooled(Pooled)
    }

    /// What each image of a pooled source adds to its path.
    private struct Pooled: Sendable {
      let pool: PathPool
      /// Each image's flags: `isArchived` and `destinationHeldIt`.
      let flags: Column<UInt8>
      /// Each image's origin, by index into `origins`.
      let originIndices: Column<UInt16>
      /// The source's distinct origins; the first is none.
      let origins: [Image.Origin?]
    }

    /// A value for each image, kept once when all are the same: most often the images of a
    /// source have the same flags and one test.
    private enum Column<Value: Equatable & Sendable>: Sendable {
      case same(Value)
      case each([Value])

      init(_ values: [Value]) {
        if let first = values.first, values.allSatisfy({ $0 == first }) {
          self = .same(first)
        } else {
          self = .each(values)
        }
      }

      subscript(position: Int) -> Value {
        switch self {
        case .same(let value): value
        case .each(let values): values[position]
        }
      }
    }

    private static var isArchivedFlag: UInt8 { 1 }
    private static var destinationHeldItFlag: UInt8 { 2 }

    private var storage: Storage

    /// The images as they are.
    init(_ images: [Image]) { storage = .held(images) }

    public init(arrayLiteral images: Image...) { self.init(images) }

    /// Images sorted by path, whose paths are pooled in `pool` in their order: the image at
    /// position `i` gets path `i`. Images of one test without a kept failure share one origin
    /// (`Image.Origin`); an image that kept a failure has its own.
    init(pooling images: some Collection<Image>, in pool: PathPool) {
      storage = Self.pooledStorage(images, in: pool)
    }

    private static func pooledStorage(
      _ images: some Collection<Image>, in pool: PathPool
    ) -> Storage {
      var flags: [UInt8] = []
      var originIndices: [UInt16] = []
      var origins: [Image.Origin?] = [nil]
      var sharedOrigins: [String: UInt16] = [:]
      flags.reserveCapacity(images.count)
      originIndices.reserveCapacity(images.count)
      for image in images {
        flags.append(
          (image.isArchived ? isArchivedFlag : 0)
            | (image.destinationHeldIt ? destinationHeldItFlag : 0))
        originIndices.append(index(of: image.origin, in: &origins, shared: &sharedOrigins))
      }
      guard origins.count <= Int(UInt16.max) + 1 else {
        // More distinct origins than 16 bits number: the images are kept as they are.
        return .held(
          images.enumerated().map { position, image in
            var image = image
            image.pooledPath = PooledPath(pool, position)
            return image
          })
      }
      return .pooled(
        Pooled(
          pool: pool, flags: Column(flags), originIndices: Column(originIndices),
          origins: origins))
    }

    /// The index of an origin in `origins`, added when it is not shared; 0 past 16 bits (the
    /// caller then keeps the images as they are).
    private static func index(
      of origin: Image.Origin?, in origins: inout [Image.Origin?], shared: inout [String: UInt16]
    ) -> UInt16 {
      guard let origin else { return 0 }
      let sharable = origin.failedComparison == nil ? origin.test : nil
      if let sharable, let known = shared[sharable] { return known }
      origins.append(origin)
      guard let index = UInt16(exactly: origins.count - 1) else { return 0 }
      if let sharable { shared[sharable] = index }
      return index
    }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
      switch storage {
      case .held(let images): images.count
      case .pooled(let pooled): pooled.pool.count
      }
    }

    public subscript(position: Int) -> Image {
      switch storage {
      case .held(let images):
        return images[position]
      case .pooled(let pooled):
        let flags = pooled.flags[position]
        return Image(
          pooledPath: PooledPath(pooled.pool, position),
          isArchived: flags & Self.isArchivedFlag != 0,
          destinationHeldIt: flags & Self.destinationHeldItFlag != 0,
          origin: pooled.origins[Int(pooled.originIndices[position])])
      }
    }

    /// The path of the image at a position, without making the image.
    func path(at position: Int) -> PooledPath {
      switch storage {
      case .held(let images): images[position].pooledPath
      case .pooled(let pooled): PooledPath(pooled.pool, position)
      }
    }

    /// Removes the images that `shouldRemove` names; the rest are then kept as they are.
    mutating func removeAll(where shouldRemove: (Image) throws -> Bool) rethrows {
      var kept: [Image] = []
      var removedAny = false
      for image in self {
        if try shouldRemove(image) { removedAny = true } else { kept.append(image) }
      }
      if removedAny { storage = .held(kept) }
    }
  }
}
