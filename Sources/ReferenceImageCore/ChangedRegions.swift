/// Boxes around the changed parts of a difference image, for the page to draw: the pixels
/// the comparison marked as differing (painted pure red) are gathered into cells of a grid,
/// touching cells merge into one box, and the grid coarsens until at most `limit` boxes remain.
package enum ChangedRegions {
  package static let limit = 64
  static let cellSize = 16

  /// The boxes, as [x, y, width, height] in the difference image's pixels.
  /// - Parameters:
  ///   - difference: The difference image (`ImageComparison.differenceImage`).
  ///   - within: Where the marks can be (the comparison's bounding box); nil for everywhere.
  package static func boxes(in difference: RGBAImage, within box: PixelBox? = nil) -> [[Int]] {
    let cells = markedCells(difference, within: box)
    var size = cellSize
    var grid = cells
    while true {
      let boxes = components(grid, size: size, width: difference.width, height: difference.height)
      if boxes.count <= limit { return boxes }
      // Twice the cell size merges neighbours: the count falls at least fourfold.
      grid = Set(grid.map { Cell(x: $0.x / 2, y: $0.y / 2) })
      size *= 2
    }
  }

  struct Cell: Hashable {
    var x: Int
    var y: Int
  }

  /// The cells of the finest grid holding a pixel of the differing colour.
  private static func markedCells(_ image: RGBAImage, within box: PixelBox?) -> Set<Cell> {
    let marked = DifferenceColor.differing
    let minX = box?.minX ?? 0
    let maxX = box?.maxX ?? image.width - 1
    let minY = box?.minY ?? 0
    let maxY = box?.maxY ?? image.height - 1
    guard minX <= maxX, minY <= maxY else { return [] }
    var cells = Set<Cell>()
    image.pixels.withUnsafeBytes { bytes in
      let words = bytes.baseAddress!.assumingMemoryBound(to: UInt32.self)
      for y in minY...maxY {
        let row = words + y * image.width
        var x = minX
        while let found = firstMarked(row, from: x, through: maxX, marked) {
          cells.insert(Cell(x: found / cellSize, y: y / cellSize))
          // The rest of this cell's row adds nothing.
          x = (found / cellSize + 1) * cellSize
        }
      }
    }
    return cells
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

  /// Bounding boxes of the groups of cells that touch (also diagonally), sorted top to bottom.
  private static func components(_ cells: Set<Cell>, size: Int, width: Int, height: Int)
    -> [[Int]]
  {
    var unvisited = cells
    var boxes: [[Int]] = []
    for start in cells.sorted(by: { ($0.y, $0.x) < ($1.y, $1.x) })
    where unvisited.contains(start) {
      unvisited.remove(start)
      var stack = [start]
      var (minX, minY, maxX, maxY) = (start.x, start.y, start.x, start.y)
      while let cell = stack.popLast() {
        (minX, minY) = (min(minX, cell.x), min(minY, cell.y))
        (maxX, maxY) = (max(maxX, cell.x), max(maxY, cell.y))
        for dy in -1...1 {
          for dx in -1...1 {
            let next = Cell(x: cell.x + dx, y: cell.y + dy)
            if unvisited.remove(next) != nil { stack.append(next) }
          }
        }
      }
      let x = minX * size
      let y = minY * size
      boxes.append([x, y, min((maxX + 1) * size, width) - x, min((maxY + 1) * size, height) - y])
    }
    return boxes
  }
}

/// The packed colours of difference images, as the comparison paints them.
package enum DifferenceColor {
  /// Opaque pure red, little-endian RGBA: what `ImageComparison` paints a differing pixel.
  package static let differing: UInt32 = DifferenceColors.differing.packed
}
