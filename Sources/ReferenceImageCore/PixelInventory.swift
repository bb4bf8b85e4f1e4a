/// What an image's pixels let a PNG drop without losing any of them: alpha when every pixel is
/// opaque, two channels when every pixel is grey, the colours themselves when there are at most
/// 256 (a palette), and bits per grey sample when every level is a multiple of a coarser step.
///
/// One pass over the pixels. Each property is a property of a colour, so while colours are being
/// collected it is checked once per new colour; past 256 colours, once per run of equal pixels.
struct PixelInventory {
  /// Every alpha is 255.
  var isOpaque = true
  /// Every pixel has red = green = blue.
  var isGrey = true
  /// The fewest bits per sample (1, 2, 4 or 8) that hold every grey level exactly, for an
  /// opaque grey image.
  var greyBitDepth = 1
  /// The distinct colours (RGBA words as they lie in memory) in order of first appearance, or
  /// nil when there are more than 256.
  var colours: [UInt32]? = []

  init(_ image: RGBAImage) {
    var found: [UInt32] = []
    var tooMany = false
    image.pixels.withUnsafeBytes { bytes in
      var table = ColourTable()
      var previous: UInt32? = nil
      for word in bytes.bindMemory(to: UInt32.self) where word != previous {
        previous = word
        if !tooMany {
          // A colour seen before has had its properties noted.
          guard table.index(of: word) == nil else { continue }
          if found.count < 256 {
            table.insert(word, index: found.count)
            found.append(word)
          } else {
            tooMany = true
          }
        }
        note(word)
      }
    }
    colours = tooMany ? nil : found
  }

  /// Narrows the properties by one colour.
  private mutating func note(_ word: UInt32) {
    let rgba = RGBAColor(packed: word)
    if rgba.alpha != 255 { isOpaque = false }
    guard isGrey else { return }
    guard rgba.red == rgba.green, rgba.green == rgba.blue else {
      isGrey = false
      return
    }
    // A level fits d bits when it is a multiple of 255 / (2^d - 1): 255, 85 or 17.
    while greyBitDepth < 8, Int(rgba.red) % (255 / ((1 << greyBitDepth) - 1)) != 0 {
      greyBitDepth *= 2
    }
  }
}

/// A small open-addressing map from RGBA words to palette indices: 512 slots for at most 256
/// colours, so probes stay short.
struct ColourTable {
  private var keys = [UInt32](repeating: 0, count: 512)
  private var values = [Int16](repeating: -1, count: 512)

  func index(of word: UInt32) -> Int? {
    var slot = Self.slot(word)
    while values[slot] >= 0 {
      if keys[slot] == word { return Int(values[slot]) }
      slot = (slot + 1) & 511
    }
    return nil
  }

  mutating func insert(_ word: UInt32, index: Int) {
    var slot = Self.slot(word)
    while values[slot] >= 0 { slot = (slot + 1) & 511 }
    keys[slot] = word
    values[slot] = Int16(index)
  }

  private static func slot(_ word: UInt32) -> Int { Int((word &* 2_654_435_761) >> 23) }
}

extension RGBAColor {
  /// The colour of a word in memory order (RGBA bytes), the inverse of `packed`.
  init(packed word: UInt32) {
    let value = UInt32(littleEndian: word)
    self.init(
      red: UInt8(truncatingIfNeeded: value), green: UInt8(truncatingIfNeeded: value >> 8),
      blue: UInt8(truncatingIfNeeded: value >> 16), alpha: UInt8(truncatingIfNeeded: value >> 24))
  }
}
