/// Where a test file's references live, as package-relative paths: the one rule that the test
/// side (which folder an assertion reads and records) and the merge side (which folders a move
/// brings over, what a skipped or failing test may own) share.
///
/// A test target under `Tests/<Target>/` keeps every reference in one root,
/// `Tests/<Target>/__References__/`, below it the test file's folder relative to the target and
/// then its stem: `Tests/ChartTests/Bars/Stacked/StackTests.swift` asserts in
/// `Tests/ChartTests/__References__/Bars/Stacked/StackTests/`. One `exclude: ["__References__"]`
/// in the target covers every reference however deep the test files sit, and a file directly in
/// the target's folder keeps its folder beside it (`Tests/ChartTests/__References__/BarTests/`
/// for `Tests/ChartTests/BarTests.swift`).
///
/// A test file anywhere else (a target at a custom `path:`) keeps its references beside it,
/// in `__References__/<Stem>/`, as does a nested file whose references were recorded there
/// before (its ``besideFolder(ofTestFile:)``), until they are moved.
public enum ReferenceLayout {
  /// The name of every reference root.
  public static let folderName = "__References__"

  /// The empty file that keeps a target's root in git before it holds a reference
  /// (`Tests/<Target>/__References__/.gitkeep`): git keeps no empty folder, and the target's
  /// `exclude` names a folder SwiftPM warns about when it is missing. SwiftPM ignores hidden
  /// files, and the tools read PNGs and pointers only.
  public static let placeholder = ".gitkeep"

  /// The folder under which test targets sit, by SwiftPM's convention.
  public static let testsFolder = "Tests"

  /// The reference folder of a test file.
  /// - Parameter path: The test file's path relative to the package root, `/`-separated.
  /// - Returns: The folder, relative to the package root, without a final `/`.
  public static func folder(ofTestFile path: String) -> String {
    let parts = components(of: path)
    let stem = Self.stem(of: parts.last ?? path)
    guard parts.count > 2, parts[0] == testsFolder else {
      return join(parts.dropLast() + [folderName, stem])
    }
    return join(parts[0...1] + [folderName] + parts[2..<(parts.count - 1)] + [stem])
  }

  /// The folder beside a nested test file, where its references were kept before the target's
  /// root held them; nil when it is the file's ``folder(ofTestFile:)`` itself.
  /// - Parameter path: The test file's path relative to the package root, `/`-separated.
  public static func besideFolder(ofTestFile path: String) -> String? {
    let parts = components(of: path)
    let beside = join(parts.dropLast() + [folderName, stem(of: parts.last ?? path)])
    return beside == folder(ofTestFile: path) ? nil : beside
  }

  /// The target's reference root a reference lies in (`Tests/ChartTests/__References__` for
  /// `Tests/ChartTests/__References__/Bars/StackTests/bar.png`), or nil for a reference outside
  /// every target's root.
  public static func targetRoot(ofReference path: String) -> String? {
    let parts = components(of: path)
    guard parts.count > 3, parts[0] == testsFolder, parts[1] != folderName,
      parts[2] == folderName
    else { return nil }
    return join(parts[0...2])
  }

  /// `BarChartTests` of `BarChartTests.swift`.
  public static func stem(of fileName: String) -> String {
    fileName.hasSuffix(".swift") ? String(fileName.dropLast(6)) : fileName
  }

  /// A path's components, split at each `/` byte as the file system splits it.
  private static func components(of path: String) -> [String] {
    path.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
  }

  private static func join<S: Sequence>(_ parts: S) -> String where S.Element == String {
    parts.joined(separator: "/")
  }
}
