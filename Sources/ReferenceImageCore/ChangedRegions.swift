/// Boxes around the changed parts of a difference image, for the page to draw and the
/// classifier to judge: the pixels the comparison marked as differing (painted pure red) are
/// gathered into cells of a grid, and touching cells (also diagonally) make one box: one box
/// per connected change, however many there are. No count is imposed: merging unrelated
/// changes to fit one would give a busy screen's moved text and added boxes one kind between
/// them. The count is bounded by the cells, a quarter of them at most (one box per isolated
/// cell), and finding them costs one pass over the marked cells.
package enum ChangedRegions {
  static let cellSize = 16

  /// The boxes, as [x, y, width, height] in the difference image's pixels, in the order of
  /// each change's first cell row by row.
  /// - Parameters:
  ///   - difference: The difference image (`ImageComparison.differenceImage`).
  ///   - within: Where the marks can be (the comparison's bounding box); nil for everywhere.
  package static func boxes(in difference: RGBAImage, within box: PixelBox? = nil) -> [[Int]] {
    markedCells(difference, within: box).components(
      size: cellSize, width: difference.width, height: difference.height)
  }

  /// The boxes (`boxes(in:within:)`), each with the smallest box around the marks inside it
  /// (`ChangeClassifier.tightened`), found from the cells' own marks in the same pass rather
  /// than by scanning each box again. Exact only where every mark lies within `box`.
  static func boxesWithMarks(in difference: RGBAImage, within box: PixelBox? = nil)
    -> [(box: [Int], marks: PixelBox)]
  {
    let grid = markedCells(difference, within: box)
    let boxes = grid.components(
      size: cellSize, width: difference.width, height: difference.height)
    return boxes.map { box in (box, grid.marks(in: box, size: cellSize)) }
  }

  /// Which cells of a grid hold a mark, one byte per cell, row by row: a flat array rather than
  /// a set, so that finding and merging the cells of a drifted image (thousands of them) costs
  /// a few passes over a small buffer.
  struct CellGrid {
    let width: Int
    let height: Int
    var marked: [Bool]
    /// Per cell, the smallest box around its marks (meaningful where `marked`).
    var marks: [PixelBox]

    init(width: Int, height: Int) {
      self.width = width
      self.height = height
      marked = [Bool](repeating: false, count: width * height)
      marks = [PixelBox](
        repeating: PixelBox(minX: 0, minY: 0, maxX: 0, maxY: 0), count: width * height)
    }

    /// Notes marks from `first` through `last` on row `y` of a cell.
    @inline(__always) mutating func mark(_ cell: Int, _ first: Int, _ last: Int, _ y: Int) {
      if marked[cell] {
        marks[cell].minX = min(marks[cell].minX, first)
        marks[cell].maxX = max(marks[cell].maxX, last)
        marks[cell].maxY = y
      } else {
        marked[cell] = true
        marks[cell] = PixelBox(minX: first, minY: y, maxX: last, maxY: y)
      }
    }

    /// The smallest box around the marks of the cells inside a box ([x, y, width, height],
    /// on cell bounds or the image's edge).
    func marks(in box: [Int], size: Int) -> PixelBox {
      var union: PixelBox?
      for cellY in (box[1] / size)...((box[1] + box[3] - 1) / size) {
        for cellX in (box[0] / size)...((box[0] + box[2] - 1) / size) {
          let cell = cellY * width + cellX
          guard marked[cell] else { continue }
          let found = marks[cell]
          if var known = union {
            known.minX = min(known.minX, found.minX)
            known.minY = min(known.minY, found.minY)
            known.maxX = max(known.maxX, found.maxX)
            known.maxY = max(known.maxY, found.maxY)
            union = known
          } else {
            union = found
          }
        }
      }
      return union!
    }

    /// Bounding boxes of the groups of marked cells that touch (also diagonally), in the order
    /// of each group's first cell row by row (top to bottom), in pixels clipped to the image.
    func components(size: Int, width imageWidth: Int, height imageHeight: Int) -> [[Int]] {
      var unvisited = marked
      var boxes: [[Int]] = []
      var stack: [Int] = []
      for start in unvisited.indices where unvisited[start] {
        unvisited[start] = false
        stack.append(start)
        var (minX, minY) = (start % width, start / width)
        var (maxX, maxY) = (minX, minY)
        while let cell = stack.popLast() {
          let (x, y) = (cell % width, cell / width)
          (minX, minY) = (min(minX, x), min(minY, y))
          (maxX, maxY) = (max(maxX, x), max(maxY, y))
          for ny in max(y - 1, 0)...min(y + 1, height - 1) {
            for nx in max(x - 1, 0)...min(x + 1, width - 1) where unvisited[ny * width + nx] {
              unvisited[ny * width + nx] = false
              stack.append(ny * width + nx)
            }
          }
        }
        let left = minX * size
        let top = minY * size
        boxes.append([
          left, top, min((maxX + 1) * size, imageWidth) - left,
          min((maxY + 1) * size, imageHeight) - top,
        ])
      }
      return boxes
    }
  }

  /// The cells of the finest grid holding a pixel of the differing colour.
  private static func markedCells(_ image: RGBAImage, within box: PixelBox?) -> CellGrid {
    let marked = DifferenceColor.differing
    var grid = CellGrid(
      width: (image.width + cellSize - 1) / cellSize,
      height: (image.height + cellSize - 1) / cellSize)
    let minX = box?.minX ?? 0
    let maxX = box?.maxX ?? image.width - 1
    let minY = box?.minY ?? 0
    let maxY = box?.maxY ?? image.height - 1
    guard minX <= maxX, minY <= maxY else { return grid }
    image.pixels.withUnsafeBytes { bytes in
      let words = bytes.baseAddress!.assumingMemoryBound(to: UInt32.self)
      for y in minY...maxY {
        let row = words + y * image.width
        var x = minX
        while let found = firstMarked(row, from: x, through: maxX, marked) {
          let cellEnd = min((found / cellSize + 1) * cellSize, maxX + 1)
          let last = lastMarked(row, from: found, through: cellEnd - 1, marked) ?? found
          grid.mark((y / cellSize) * grid.width + found / cellSize, found, last, y)
          // The rest of this cell's row is known.
          x = cellEnd
        }
      }
    }
    return grid
  }

  /// The first column from `x` through `maxX` of a row whose word is `marked`; eight words
  /// at a time, so unmarked stretches (most of a difference image) cost one compare per eight.
  @inline(__always)
  static func firstMarked(
    _ row: UnsafePointer<UInt32>, from start: Int, through maxX: Int, _ marked: UInt32
  ) -> Int? {
    var x = start
    let lanes = SIMD8<UInt32>(repeating: marked)
    while x + 8 <= maxX + 1 {
      let words = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD8<UInt32>.self)
      if any(words .== lanes) { break }
      x += 8
    }
    while x <= maxX {
      if row[x] == marked { return x }
      x += 1
    }
    return nil
  }

  /// The last column from `minX` through `x` of a row whose word is `marked`.
  @inline(__always)
  static func lastMarked(
    _ row: UnsafePointer<UInt32>, from minX: Int, through end: Int, _ marked: UInt32
  ) -> Int? {
    var x = end
    let lanes = SIMD8<UInt32>(repeating: marked)
    while x - 8 >= minX - 1 {
      let words = UnsafeRawPointer(row + x - 7).loadUnaligned(as: SIMD8<UInt32>.self)
      if any(words .== lanes) { break }
      x -= 8
    }
    while x >= minX {
      if row[x] == marked { return x }
      x -= 1
    }
    return nil
  }
}

/// The packed colours of difference images, as the comparison paints them.
package enum DifferenceColor {
  /// Opaque pure red, little-endian RGBA: what `ImageComparison` paints a differing pixel.
  package static let differing: UInt32 = DifferenceColors.differing.packed
}
