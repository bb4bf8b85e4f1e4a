import Foundation

extension RGBAImage {
  /// Decodes PNG bytes, such as a renderer returns, into the pixels `assertImage` compares.
  /// Every valid PNG is accepted (all colour types and bit depths, palettes, transparency,
  /// interlacing) and converted to 8-bit RGBA, as `PNGDecoder().decode(_:)` does.
  /// - Parameter data: The PNG file's bytes.
  /// - Throws: `PNGError` when the bytes are not a valid PNG.
  public init(pngData data: some ContiguousBytes) throws(PNGError) {
    self = try PNGDecoder().decode(data)
  }

  /// Reads and decodes a PNG file, such as one a renderer wrote.
  /// - Parameter url: The file.
  /// - Throws: ``ReferenceImageError/unreadableImage(path:reason:)`` naming the file when it
  ///   cannot be read or is not a valid PNG.
  public init(contentsOfPNG url: URL) throws(ReferenceImageError) {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw .unreadableImage(path: url.path, reason: Self.reason(error))
    }
    do {
      self = try PNGDecoder().decode(data)
    } catch {
      throw .unreadableImage(path: url.path, reason: "\(error)")
    }
  }

  /// Foundation's reading error in a few words: "no such file", "permission denied".
  private static func reason(_ error: Error) -> String {
    switch (error as? CocoaError)?.code {
    case .fileReadNoSuchFile?: return "no such file"
    case .fileReadNoPermission?: return "permission denied"
    default: return (error as NSError).localizedDescription
    }
  }
}

/// Compares the PNG file a renderer wrote with its reference, as
/// ``assertImage(_:named:comparison:bound:ignoring:referenceFolder:fileID:filePath:line:column:)``
/// compares an image: a file that cannot be read or decoded fails the test, naming it.
/// - Parameters:
///   - pngFile: The file the renderer wrote.
///   - name: The reference's name, without `.png`; unique within the test file.
///   - comparison: How pixels are compared; `.exact` unless given.
///   - bound: How many differing pixels are allowed; none unless given.
///   - ignoring: Rectangles whose pixels are not compared; none unless given.
///   - referenceFolder: A folder instead of the default; nil for the scoped setting, if any.
///   - fileID: The calling file's `#fileID`, for Swift Testing's issue location.
///   - filePath: The calling file's `#filePath`: it locates the references and the package.
///   - line: The calling line, where a failure is reported.
///   - column: The calling column, where a Swift Testing issue is reported.
public func assertImage(
  pngFile: URL, named name: String, comparison: ImageComparison = .exact,
  bound: DifferenceBound = .none, ignoring: [IgnoredRegion] = [], referenceFolder: URL? = nil,
  fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
  column: UInt = #column
) {
  let image: RGBAImage
  do {
    image = try RGBAImage(contentsOfPNG: pngFile)
  } catch {
    let context = TestContext(fileID: fileID, filePath: filePath, line: line, column: column)
    return context.fail("\(error)")
  }
  assertImage(
    image, named: name, comparison: comparison, bound: bound, ignoring: ignoring,
    referenceFolder: referenceFolder, fileID: fileID, filePath: filePath, line: line,
    column: column)
}
