import ReferenceContracts

/// The references that skipped tests may own, which an orphan search leaves alone: a skipped
/// test verified nothing, but it owns only what its own suite's reference folders can hold, not
/// every reference of the package.
///
/// - A skipped test whose source file is known (Swift Testing's event stream names it) may own
///   the files of a `<File>/` folder in a `__References__` root (`__References__/<File>/`, or
///   `__References__/<Folders>/<File>/` for a nested test file) and below.
/// - Otherwise (XCTest records the name alone), the files its suite's other tests asserted in
///   name its folders; a suite none of whose tests asserted may own every reference folder of
///   its module's test folders (`Tests/<Module>/`, and where its module's assertions were), and
///   a test of a module none of whose tests asserted may own any reference.
/// - A folder outside the default layout (`referenceFolder:`) may be any test's: while any test
///   is skipped, nothing there is an orphan.
/// - A path that a run's manifest records for a skipped test is its own.
struct SkippedTestScope: Sendable {
  /// The file stems (`BadgeTests`) whose default folders skipped tests may own.
  private var fileStems: Set<String> = []
  /// The test folders (`Tests/BadgeTests/`, with the slash) skipped tests may own whole.
  private var moduleFolders: Set<String> = []
  /// Paths the runs recorded for skipped tests.
  private var recordedPaths: Set<String> = []
  /// Whether a skipped test may own any reference: nothing says where its module's are.
  private var ownsAnything = false
  /// Whether any test was skipped.
  let isEmpty: Bool

  /// The scope of `skipped` tests.
  /// - Parameters:
  ///   - skipped: The skipped tests' listing names.
  ///   - files: The source file of each skipped test whose evidence names it.
  ///   - suiteFiles: The files each suite's assertions were made in (`SourceInventory`).
  ///   - uses: The uses the runs recorded: paths a skipped test used in another run.
  init(
    skipped: [String], files: [String: String], suiteFiles: [String: Set<String>],
    uses: [ArchiveManifest.ReferenceUse]
  ) {
    isEmpty = skipped.isEmpty
    guard !skipped.isEmpty else { return }
    let skippedSet = Set(skipped)
    recordedPaths = Set(uses.filter { skippedSet.contains($0.test) }.map(\.path))
    for test in skipped {
      if let file = files[test] {
        fileStems.insert(Self.stem(of: file))
      } else if let asserted = suiteFiles[Self.suite(of: test)], !asserted.isEmpty {
        fileStems.formUnion(asserted.map(Self.stem))
      } else {
        let module = Self.module(of: test)
        let asserted = suiteFiles.filter { Self.module(of: $0.key) == module }.values
          .flatMap { $0 }
        ownsAnything = ownsAnything || asserted.isEmpty
        moduleFolders.insert("Tests/\(module)/")
        moduleFolders.formUnion(asserted.map(Self.testFolder))
      }
    }
  }

  /// Whether a skipped test may own the reference at `path`.
  func protects(_ path: String) -> Bool {
    guard !isEmpty else { return false }
    if ownsAnything || recordedPaths.contains(path) { return true }
    let components = Self.components(of: path, omittingEmpty: false)
    guard let marker = components.dropLast().firstIndex(of: "__References__") else {
      return true
    }
    // A nested test file's folder sits below its folders' names in the target's root
    // (`__References__/Bars/StackTests/`), so a stem may own any folder of the path.
    if components[(marker + 1)..<(components.count - 1)].contains(where: {
      fileStems.contains(String($0))
    }) {
      return true
    }
    return moduleFolders.contains { path.utf8.starts(with: $0.utf8) }
  }

  /// The suite of a test's listing name: `Module.Class` of `Module.Class/testX`, the module of
  /// a free function (`Module.free()`).
  static func suite(of test: String) -> String {
    guard let slash = test.utf8.lastIndex(of: UInt8(ascii: "/")) else { return module(of: test) }
    return String(decoding: test.utf8[..<slash], as: UTF8.self)
  }

  /// `BadgeTests` of `BadgeTests.BadgeRenderTests/dotIcon(size:)`.
  private static func module(of test: String) -> String {
    String(
      decoding: test.utf8.prefix { $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "/") },
      as: UTF8.self)
  }

  /// `BadgeTests` of `Tests/BadgeTests/BadgeTests.swift` or `BadgeTests.swift`.
  private static func stem(of file: String) -> String {
    let name = components(of: file).last.map(String.init) ?? file
    return name.hasSuffix(".swift") ? String(name.dropLast(6)) : name
  }

  /// `Tests/BadgeTests/` of `Tests/BadgeTests/Sub/BadgeTests.swift`: a target's folder is the
  /// first two components of a file under `Tests/`, else the file's own folder.
  private static func testFolder(of file: String) -> String {
    let components = components(of: file)
    if components.count > 2, components[0] == "Tests" { return "Tests/\(components[1])/" }
    return components.dropLast().joined(separator: "/") + "/"
  }

  /// A path's components, split at each `/` byte as the file system splits it: split by
  /// `Character`, a `/` followed by a combining mark is one character and no separator.
  private static func components(of path: String, omittingEmpty: Bool = true) -> [Substring] {
    path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: omittingEmpty)
      .map { Substring($0) }
  }
}
