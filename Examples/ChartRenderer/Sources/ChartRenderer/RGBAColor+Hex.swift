import ReferenceImageCore

extension RGBAColor {
  /// Creates an opaque colour from a `0xRRGGBB` literal, the way design tools print colours.
  /// - Parameters:
  ///   - hex: The colour as `0xRRGGBB`.
  ///   - alpha: The alpha channel; opaque by default.
  public init(hex: UInt32, alpha: UInt8 = 255) {
    self.init(
      red: UInt8((hex >> 16) & 0xFF), green: UInt8((hex >> 8) & 0xFF), blue: UInt8(hex & 0xFF),
      alpha: alpha)
  }

  /// The same colour with another alpha.
  /// - Parameter alpha: The new alpha channel.
  /// - Returns: The colour with `alpha` replaced.
  public func withAlpha(_ alpha: UInt8) -> RGBAColor {
    RGBAColor(red: red, green: green, blue: blue, alpha: alpha)
  }
}
