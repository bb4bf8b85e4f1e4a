import Foundation

/// Says what kind of change each changed region of a failing comparison is (`ChangeKind`).
///
/// The regions are where the comparison's difference image is red (the pixels it counted), boxed
/// as the review page boxes them (`ChangedRegions`) and tightened to those pixels; each region
/// is then judged on every pixel of its box whose bytes differ. Called only for a comparison
/// that failed or a change a review shows, so a passing run pays nothing.
///
/// The tests, in order, for each region, each decided on the changed pixels (never on the
/// region's box, so content that stays put around or under a change vetoes nothing):
/// 1. every changed pixel within `noiseLevel` of the reference in every channel: noise;
/// 2. the reference shows background at the changed pixels (or a line that stays put running
///    on through them, such as a grid line), and they stand apart from the content left as it
///    was (a bolder font, a taller bar grow from it): added; the same for the render: removed.
///    Decided before any shift, which could line background up with background;
/// 3. an offset (dx, dy), |dx|, |dy| ≤ `largestShift`, the smallest first, explains each
///    changed pixel both ways (the render shows what the reference showed the offset away, and
///    the reference's content shows in the render the offset on), pixels on lines that stay put
///    aside, and the few left unexplained lie scattered: moved;
/// 4. every changed pixel an anti-aliased edge (a blend of its neighbours in both images, or in
///    one with a difference of at most half the range), or the content redrawn less than a
///    pixel away (each pixel between the reference's value and one neighbour's), never with a
///    larger difference on a solid stroke: anti-aliasing;
/// 5. each reference colour maps to one render colour, no pixel of the main ones stayed, and
///    neither side of the main mapping is background: recoloured;
/// 6. anything else, a region that mixes kinds included: changed.
/// Each test allows a twentieth of the changed pixels to disagree, for the anti-aliased rims
/// that a renderer draws a little differently at a new place.
public enum ChangeClassifier {
  /// The largest channel difference that counts as noise, and as "the same colour".
  public static let noiseLevel = 8
  /// The largest offset, in each direction, that a move is looked for at.
  public static let largestShift = 4

  /// Classifies every changed region of a pair.
  /// - Parameters:
  ///   - image: The image under test.
  ///   - reference: Its reference; of any size.
  ///   - differenceImage: The comparison's difference image of the two
  ///     (`ImageComparison.differenceImage(_:_:)`): its red pixels are the changed ones.
  /// - Returns: The regions, top to bottom; for a size mismatch, the areas only one image
  ///   covers first (as `resized`), then the regions of the common area, aligned top-left.
  public static func classify(
    _ image: RGBAImage, reference: RGBAImage, differenceImage: RGBAImage
  ) -> ChangeClassification {
    let common = commonBox(image, reference)
    var regions = resizedRegions(image, reference)
    if image.size == reference.size && differenceImage.size == image.size {
      // Every mark lies in the common area, so each box's tightened box comes from its cells.
      let found = ChangedRegions.boxesWithMarks(in: differenceImage, within: common)
      regions += Pair.with(image, reference) { pair in
        judge(found.map { ($0.box, $0.marks) }, pair: pair, common: common, image, reference)
      }
    } else {
      let boxes = ChangedRegions.boxes(in: differenceImage, within: common)
      regions += classify(
        image, reference: reference, differenceImage: differenceImage, boxes: boxes)
    }
    return ChangeClassification(regions: regions)
  }

  /// Classifies the given boxes of a pair, one region per box, in the same order: the review
  /// labels the boxes it draws. A box reaching beyond the common area is `resized`.
  /// - Parameters:
  ///   - image: The image under test.
  ///   - reference: Its reference.
  ///   - differenceImage: Their difference image.
  ///   - boxes: [x, y, width, height], as `ChangedRegions.boxes` gives them.
  /// - Returns: One region per box, its box tightened to the red pixels inside.
  package static func classify(
    _ image: RGBAImage, reference: RGBAImage, differenceImage: RGBAImage, boxes: [[Int]]
  ) -> [ChangedRegion] {
    let common = commonBox(image, reference)
    return Pair.with(image, reference) { pair in
      judge(
        boxes.map { ($0, nil) }, pair: pair, common: common, image, reference,
        differenceImage: differenceImage)
    }
  }

  /// One region per box: `resized` for a box reaching beyond the common area, otherwise
  /// judged on its tightened box (`marks`, or found in `differenceImage` when nil).
  private static func judge(
    _ boxes: [(box: [Int], marks: PixelBox?)], pair: Pair, common: PixelBox, _ image: RGBAImage,
    _ reference: RGBAImage, differenceImage: RGBAImage? = nil
  ) -> [ChangedRegion] {
    let judge = { (item: (box: [Int], marks: PixelBox?)) -> ChangedRegion in
      let rectangle = item.box
      let box = PixelBox(
        minX: rectangle[0], minY: rectangle[1], maxX: rectangle[0] + rectangle[2] - 1,
        maxY: rectangle[1] + rectangle[3] - 1)
      guard box.maxX <= common.maxX, box.maxY <= common.maxY else {
        return ChangedRegion(
          box: box, changedPixelCount: rectangle[2] * rectangle[3],
          kind: .resized(actual: image.size, reference: reference.size))
      }
      let tight = item.marks ?? differenceImage.flatMap { tightened(box, in: $0) } ?? box
      return RegionJudge(pair: pair, box: tight).region()
    }
    let area = boxes.reduce(0) { $0 + $1.box[2] * $1.box[3] }
    guard boxes.count > 1, area >= parallelArea else { return boxes.map(judge) }
    return concurrentMap(boxes, judge)
  }

  /// From this many pixels in the boxes together, regions are judged on every core, as the
  /// difference image is drawn: below it, starting tasks costs more than it saves.
  static let parallelArea = 1 << 17

  /// `items.map(transform)`, one task per item on every core; each task writes its own slot.
  private static func concurrentMap<Item, Result>(
    _ items: [Item], _ transform: (Item) -> Result
  ) -> [Result] {
    let results = UnsafeMutableBufferPointer<Result>.allocate(capacity: items.count)
    defer {
      results.baseAddress!.deinitialize(count: items.count)
      results.deallocate()
    }
    withoutActuallyEscaping(transform) { transform in
      nonisolated(unsafe) let slots = results
      nonisolated(unsafe) let transform = transform
      nonisolated(unsafe) let items = items
      DispatchQueue.concurrentPerform(iterations: items.count) { index in
        (slots.baseAddress! + index).initialize(to: transform(items[index]))
      }
    }
    return Array(results)
  }

  /// The top-left area both images cover.
  package static func commonBox(_ image: RGBAImage, _ reference: RGBAImage) -> PixelBox {
    PixelBox(
      minX: 0, minY: 0, maxX: min(image.width, reference.width) - 1,
      maxY: min(image.height, reference.height) - 1)
  }

  /// The areas only one image covers, aligned top-left: a strip right of the common area (as
  /// tall as the wider image) and one below it (as wide as the common area).
  package static func resizedRegions(_ image: RGBAImage, _ reference: RGBAImage) -> [ChangedRegion]
  {
    let common = commonBox(image, reference)
    let kind = ChangeKind.resized(actual: image.size, reference: reference.size)
    var regions: [ChangedRegion] = []
    let wider = image.width >= reference.width ? image : reference
    let taller = image.height >= reference.height ? image : reference
    if wider.width > common.maxX + 1 {
      let box = PixelBox(
        minX: common.maxX + 1, minY: 0, maxX: wider.width - 1, maxY: wider.height - 1)
      regions.append(ChangedRegion(box: box, changedPixelCount: box.area, kind: kind))
    }
    if taller.height > common.maxY + 1 {
      let box = PixelBox(
        minX: 0, minY: common.maxY + 1, maxX: common.maxX, maxY: taller.height - 1)
      regions.append(ChangedRegion(box: box, changedPixelCount: box.area, kind: kind))
    }
    return regions
  }

  /// The smallest box around the red pixels of `box`; nil when it has none.
  static func tightened(_ box: PixelBox, in difference: RGBAImage) -> PixelBox? {
    let red = DifferenceColor.differing
    var found: PixelBox?
    difference.pixels.withUnsafeBytes { bytes in
      let words = bytes.baseAddress!.assumingMemoryBound(to: UInt32.self)
      for y in box.minY...box.maxY {
        let row = words + y * difference.width
        guard let first = ChangedRegions.firstMarked(row, from: box.minX, through: box.maxX, red)
        else { continue }
        let last = ChangedRegions.lastMarked(row, from: first, through: box.maxX, red) ?? first
        if var union = found {
          union.minX = min(union.minX, first)
          union.maxX = max(union.maxX, last)
          union.maxY = y
          found = union
        } else {
          found = PixelBox(minX: first, minY: y, maxX: last, maxY: y)
        }
      }
    }
    return found
  }
}

extension PixelBox {
  /// The number of pixels inside.
  var area: Int { (maxX - minX + 1) * (maxY - minY + 1) }
}

/// The two images' pixels as words, read at (x, y) of their common area.
struct Pair {
  let actual: UnsafeBufferPointer<UInt32>
  let reference: UnsafeBufferPointer<UInt32>
  let actualWidth: Int
  let referenceWidth: Int
  /// The common area's size.
  let width: Int
  let height: Int

  static func with<Result>(
    _ image: RGBAImage, _ reference: RGBAImage, _ body: (Pair) -> Result
  ) -> Result {
    image.pixels.withUnsafeBytes { actualBytes in
      reference.pixels.withUnsafeBytes { referenceBytes in
        body(
          Pair(
            actual: actualBytes.bindMemory(to: UInt32.self),
            reference: referenceBytes.bindMemory(to: UInt32.self), actualWidth: image.width,
            referenceWidth: reference.width, width: min(image.width, reference.width),
            height: min(image.height, reference.height)))
      }
    }
  }

  @inline(__always) func actual(_ x: Int, _ y: Int) -> UInt32 { actual[y &* actualWidth &+ x] }
  @inline(__always) func reference(_ x: Int, _ y: Int) -> UInt32 {
    reference[y &* referenceWidth &+ x]
  }
  @inline(__always) func contains(_ x: Int, _ y: Int) -> Bool {
    x >= 0 && y >= 0 && x < width && y < height
  }
}

/// Packed RGBA words, compared and weighed as colours.
enum Word {
  /// The four channels, red first.
  @inline(__always) static func channels(_ word: UInt32) -> SIMD4<UInt8> {
    unsafeBitCast(word.littleEndian, to: SIMD4<UInt8>.self)
  }

  /// The largest difference of any channel.
  @inline(__always) static func largestDifference(_ a: UInt32, _ b: UInt32) -> Int {
    let (left, right) = (channels(a), channels(b))
    return Int((pointwiseMax(left, right) &- pointwiseMin(left, right)).max())
  }

  /// Equal, or within the noise level in every channel.
  @inline(__always) static func alike(_ a: UInt32, _ b: UInt32) -> Bool {
    a == b || largestDifference(a, b) <= ChangeClassifier.noiseLevel
  }

  /// Whether every channel of `word` lies between those of `a` and `b`, give or take the
  /// noise level.
  @inline(__always) static func between(_ word: UInt32, _ a: UInt32, _ b: UInt32) -> Bool {
    let value = SIMD4<Int16>(truncatingIfNeeded: channels(word))
    let left = SIMD4<Int16>(truncatingIfNeeded: channels(a))
    let right = SIMD4<Int16>(truncatingIfNeeded: channels(b))
    let noise = SIMD4<Int16>(repeating: Int16(ChangeClassifier.noiseLevel))
    return all(value .>= pointwiseMin(left, right) &- noise)
      && all(value .<= pointwiseMax(left, right) &+ noise)
  }

  /// Whether the colour is fully transparent.
  @inline(__always) static func isTransparent(_ word: UInt32) -> Bool { word >> 24 == 0 }

  /// Luma × 1000, over white where the colour is translucent.
  @inline(__always) static func luma(_ word: UInt32) -> Int {
    let red = Int(word & 0xFF)
    let green = Int((word >> 8) & 0xFF)
    let blue = Int((word >> 16) & 0xFF)
    let alpha = Int(word >> 24)
    let opaque = 299 * red + 587 * green + 114 * blue
    return alpha == 255 ? opaque : (opaque * alpha + 255_000 * (255 - alpha)) / 255
  }

  static func color(_ word: UInt32) -> RGBAColor {
    RGBAColor(
      red: UInt8(word & 0xFF), green: UInt8((word >> 8) & 0xFF),
      blue: UInt8((word >> 16) & 0xFF), alpha: UInt8(word >> 24))
  }
}
