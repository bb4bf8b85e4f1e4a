/// One lossless layout of an image's pixels in a PNG: a colour type, a bit depth and, for a
/// palette, its entries. Every form here decodes to exactly the image's RGBA8 pixels.
struct PNGColourForm {
  enum Kind: Equatable {
    /// Colour type 3, with `tRNS` when some entry is not opaque.
    case palette
    /// Colour type 0, opaque grey.
    case grey
    /// Colour type 4.
    case greyAlpha
    /// Colour type 2, opaque colour.
    case rgb
    /// Colour type 6.
    case rgba
  }

  var kind: Kind
  /// Bits per sample: 1, 2, 4 or 8.
  var bitDepth: Int
  /// The palette's entries, RGBA words in index order: those that are not opaque first, so
  /// `tRNS` stops at the last of them.
  var palette: [UInt32] = []

  /// The forms worth trying for an image: a palette when it has at most 256 colours, grey
  /// when every pixel is grey, and otherwise RGB or RGBA, also beside a palette: a small image
  /// does not repay PLTE's three bytes a colour, and filtered truecolour can deflate smaller
  /// than a palette of many colours.
  static func candidates(_ inventory: PixelInventory) -> [PNGColourForm] {
    var forms: [PNGColourForm] = []
    if let colours = inventory.colours {
      let entries =
        colours.filter { RGBAColor(packed: $0).alpha != 255 }
        + colours.filter { RGBAColor(packed: $0).alpha == 255 }
      // At most 256 colours, so 8 bits always fit.
      let depth = [1, 2, 4, 8].first { colours.count <= 1 << $0 }!
      forms.append(PNGColourForm(kind: .palette, bitDepth: depth, palette: entries))
    }
    if inventory.isGrey {
      forms.append(
        inventory.isOpaque
          ? PNGColourForm(kind: .grey, bitDepth: inventory.greyBitDepth)
          : PNGColourForm(kind: .greyAlpha, bitDepth: 8))
    } else {
      forms.append(PNGColourForm(kind: inventory.isOpaque ? .rgb : .rgba, bitDepth: 8))
    }
    return forms
  }

  /// The filter types rows may use: for a byte or less a pixel, None, Sub and Up only. Average
  /// and Paeth make each byte wait for its left neighbour through several operations, which at
  /// one byte a pixel made reading a palette file eight times slower than reading the `.fast`
  /// file of the same pixels; Sub's wait is one addition.
  var filterTypes: [UInt8] { filterStride == 1 ? [0, 1, 2, 4] : [0, 1, 2, 3, 4] }

  /// IHDR's colour type.
  var colourType: UInt8 {
    switch kind {
    case .grey: 0
    case .rgb: 2
    case .palette: 3
    case .greyAlpha: 4
    case .rgba: 6
    }
  }

  var channels: Int {
    switch kind {
    case .palette, .grey: 1
    case .greyAlpha: 2
    case .rgb: 3
    case .rgba: 4
    }
  }

  /// The distance in bytes from a byte to the same byte of the pixel on its left, as the PNG
  /// filters define it: one for forms under a byte per pixel.
  var filterStride: Int { max(1, channels * bitDepth / 8) }

  /// The bytes of one row, without its filter byte.
  func rowBytes(width: Int) -> Int { (width * channels * bitDepth + 7) / 8 }

  /// The rows of `image` in this form, unfiltered, without filter bytes, one after another.
  func packedRows(_ image: RGBAImage) -> [UInt8] {
    let rowBytes = rowBytes(width: image.width)
    var rows = [UInt8](repeating: 0, count: rowBytes * image.height)
    let table = paletteTable()
    image.pixels.withUnsafeBytes { bytes in
      let words = bytes.bindMemory(to: UInt32.self)
      rows.withUnsafeMutableBufferPointer { output in
        for y in 0..<image.height {
          let row = UnsafeBufferPointer(
            rebasing: words[(y * image.width)..<((y + 1) * image.width)])
          pack(row, table: table, into: output.baseAddress! + y * rowBytes)
        }
      }
    }
    return rows
  }

  private func paletteTable() -> ColourTable {
    var table = ColourTable()
    for (index, word) in palette.enumerated() { table.insert(word, index: index) }
    return table
  }

  /// One row of pixels packed into `output`.
  private func pack(
    _ row: UnsafeBufferPointer<UInt32>, table: ColourTable, into output: UnsafeMutablePointer<UInt8>
  ) {
    switch kind {
    case .rgba:
      UnsafeMutableRawPointer(output).copyMemory(
        from: UnsafeRawPointer(row.baseAddress!), byteCount: row.count * 4)
    case .rgb:
      for (x, word) in row.enumerated() {
        let colour = RGBAColor(packed: word)
        output[x * 3] = colour.red
        output[x * 3 + 1] = colour.green
        output[x * 3 + 2] = colour.blue
      }
    case .greyAlpha:
      for (x, word) in row.enumerated() {
        let colour = RGBAColor(packed: word)
        output[x * 2] = colour.red
        output[x * 2 + 1] = colour.alpha
      }
    case .grey:
      let step = 255 / ((1 << bitDepth) - 1)
      packSamples(row, into: output) { UInt8(Int(RGBAColor(packed: $0).red) / step) }
    case .palette:
      var previous: (word: UInt32, index: UInt8)? = nil
      packSamples(row, into: output) { word in
        if let previous, previous.word == word { return previous.index }
        // The palette holds every colour of the image it was collected from.
        let index = UInt8(table.index(of: word)!)
        previous = (word, index)
        return index
      }
    }
  }

  /// Packs one sample per pixel at `bitDepth` bits, the leftmost pixel in the high bits.
  private func packSamples(
    _ row: UnsafeBufferPointer<UInt32>, into output: UnsafeMutablePointer<UInt8>,
    _ sample: (UInt32) -> UInt8
  ) {
    if bitDepth == 8 {
      for (x, word) in row.enumerated() { output[x] = sample(word) }
      return
    }
    let perByte = 8 / bitDepth
    for (x, word) in row.enumerated() {
      let shift = 8 - bitDepth * (x % perByte + 1)
      output[x / perByte] |= sample(word) << shift
    }
  }

  /// PLTE and, when some entry is not opaque, tRNS: complete chunks. Empty for other forms.
  var paletteChunks: [UInt8] {
    guard kind == .palette else { return [] }
    let colours = palette.map(RGBAColor.init(packed:))
    var chunks = PNGChunks.encode(
      type: PNGChunks.type("PLTE"), data: colours.flatMap { [$0.red, $0.green, $0.blue] })
    let alphas = colours.map(\.alpha).prefix { $0 != 255 }
    if !alphas.isEmpty {
      chunks += PNGChunks.encode(type: PNGChunks.type("tRNS"), data: Array(alphas))
    }
    return chunks
  }
}
