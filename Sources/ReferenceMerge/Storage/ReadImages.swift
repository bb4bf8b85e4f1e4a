import Foundation
import ReferenceImageCore

extension MergePlan {
  /// One source's images, moved out of its inventory: shared by the items that chose one.
  final class SourceImages: Sendable {
    /// The source's index into `inventories`.
    let source: Int32
    /// Its images, sorted by path.
    let images: SourceInventory.ImageList

    init(source: Int32, images: SourceInventory.ImageList) {
      self.source = source
      self.images = images
    }
  }

  /// Every image the plan's sources hold, source by source: each source's list is moved in,
  /// not copied, so planning never holds an image twice.
  struct ReadImages {
    /// Each source's images, by index into `inventories`.
    let lists: [SourceImages]

    /// Moves the images out of `inventories`, leaving their lists empty.
    init(movingFrom inventories: inout [SourceInventory]) {
      var lists: [SourceImages] = []
      lists.reserveCapacity(inventories.count)
      for index in inventories.indices {
        lists.append(SourceImages(source: Int32(index), images: inventories[index].images))
        inventories[index].images = []
      }
      self.lists = lists
    }

    /// The image at a place.
    subscript(place: Place) -> SourceInventory.Image {
      lists[Int(place.source)].images[Int(place.image)]
    }

    /// The path of the image at a place, without copying the image.
    func path(at place: Place) -> PooledPath {
      lists[Int(place.source)].images.path(at: Int(place.image))
    }

    /// The image at a place, with its source.
    func candidate(at place: Place) -> Candidate {
      Candidate(sourceIndex: Int(place.source), image: self[place])
    }

    /// Calls `body` with each path's places in path order; a path's places in source order.
    func forEachPath(_ body: ([Place]) -> Void) {
      ReaderQueue.forEachPath(inLists: lists.map(\.images.count), path: path(at:), body)
    }

    /// How many paths the images are of.
    var pathCount: Int {
      var count = 0
      forEachPath { _ in count += 1 }
      return count
    }
  }

  /// Where an image is in `ReadImages`.
  struct Place: Sendable, Equatable {
    var source: Int32
    var image: Int32
  }
}
