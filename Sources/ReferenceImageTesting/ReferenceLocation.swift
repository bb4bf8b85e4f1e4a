import Foundation
import ReferenceContracts

/// Where one reference image lives: its absolute path, and its path relative to the package
/// root, which is how archives and manifests name it.
///
/// By default a test file `Tests/ChartTests/BarChartTests.swift` keeps its references in
/// `Tests/ChartTests/__References__/BarChartTests/`, one PNG per name, and a nested one,
/// `Tests/ChartTests/Bars/StackTests.swift`, in `Tests/ChartTests/__References__/Bars/StackTests/`:
/// every reference of a target under its one root (`ReferenceLayout` in `ReferenceContracts`).
public struct ReferenceLocation: Sendable, Hashable, CustomStringConvertible {
  /// The package root: the nearest folder above the test file holding a `Package.swift`.
  public let packageRoot: URL
  /// The path relative to `packageRoot`, with `/` separators.
  public let relativePath: String

  /// The absolute file URL.
  public var url: URL { packageRoot.appendingPathComponent(relativePath, isDirectory: false) }

  public var description: String { relativePath }

  /// The name of every reference root: `Tests/<Target>/__References__`.
  public static let folderName = ReferenceLayout.folderName

  /// The environment variable that moves every reference folder: when set, references of test
  /// file `F.swift` live in `$IMAGE_REFERENCE_DIR/F/` (relative paths start at the package
  /// root). It must lie inside the package.
  public static let environmentVariable = GenerationContract.referenceFolderVariable

  /// Locates a reference by name for the test file that asserts it.
  /// - Parameters:
  ///   - name: The image name, without `.png`; may contain `/` to make sub-folders.
  ///   - filePath: The test file's `#filePath`.
  ///   - folder: A folder to use instead of the default (absolute, or relative to the package
  ///     root); nil for the default or `IMAGE_REFERENCE_DIR`.
  ///   - environment: The process environment.
  /// - Throws: `ReferenceImageError` when no `Package.swift` is found above the test file, the
  ///   name is empty or climbs with `..`, or the folder lies outside the package.
  public init(
    name: String, filePath: String, folder: URL? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(ReferenceImageError) {
    let components = name.split(separator: "/", omittingEmptySubsequences: false)
    guard !name.isEmpty, !name.hasPrefix("/"),
      !components.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." })
    else {
      throw .invalidName(name)
    }
    let override = environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    let place = try FolderPlace.of(filePath: filePath, folder: folder, override: override)
    // The name has no empty, `.` or `..` component, so joining it to the standardized folder
    // gives the standardized path.
    let absolute = place.folder + "/" + name + ".png"
    guard absolute.hasPrefix(place.rootPath) else {
      throw .outsidePackage(path: absolute, packageRoot: place.root.path)
    }
    self.packageRoot = place.root
    self.relativePath = String(absolute.dropFirst(place.rootPath.count))
  }

  /// Creates a location from a package root and a relative path, as read from a manifest.
  public init(packageRoot: URL, relativePath: String) {
    self.packageRoot = packageRoot
    self.relativePath = relativePath
  }

  /// The path a folder argument names: `URL(fileURLWithPath: "Snapshots")` keeps the relative
  /// text (Foundation would otherwise resolve it against the working directory, which is not
  /// the package root under every test runner); absolute URLs and URLs relative to some other
  /// base are taken as they resolve.
  fileprivate static func packageRelativePath(_ folder: URL) -> String {
    let relative = folder.relativePath
    guard !relative.hasPrefix("/") else { return relative }
    guard let base = folder.baseURL else { return relative }
    let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    return base.standardizedFileURL.path == cwd.standardizedFileURL.path ? relative : folder.path
  }

  fileprivate static func resolve(_ path: String, root: URL) -> URL {
    path.hasPrefix("/")
      ? URL(fileURLWithPath: path) : root.appendingPathComponent(path)
  }

  /// The nearest folder at or above `file`'s folder that holds a `Package.swift`. Every
  /// assertion asks, so a folder's answer is kept for the process once found (as the variant
  /// declarations are); a miss is asked again, in case the package is made later.
  static func packageRoot(above file: URL) -> URL? {
    let folder = file.deletingLastPathComponent()
    return PackageRoots.shared.root(of: folder.path) { searchPackageRoot(from: folder) }
  }

  private static func searchPackageRoot(from start: URL) -> URL? {
    var folder = start
    while folder.path != "/" && !folder.path.isEmpty {
      if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path)
      {
        return folder
      }
      folder = folder.deletingLastPathComponent()
    }
    return nil
  }
}

/// The package roots found so far, by the test file's folder.
private final class PackageRoots: @unchecked Sendable {
  static let shared = PackageRoots()

  private let lock = NSLock()
  private var byFolder: [String: URL] = [:]

  func root(of folder: String, search: () -> URL?) -> URL? {
    lock.lock()
    defer { lock.unlock() }
    if let known = byFolder[folder] { return known }
    let found = search()
    if let found { byFolder[folder] = found }
    return found
  }
}

/// Where a test file's references go: its package root and their folder, standardized. Every
/// assertion needs it, and Foundation's URL operations consult the file system (to tell folders
/// from files), so the default folder's place is kept per test file.
private struct FolderPlace: Sendable {
  var root: URL
  /// The root's path with a final `/`.
  var rootPath: String
  /// The references' folder, absolute, standardized, without a final `/`.
  var folder: String

  static func of(
    filePath: String, folder: URL?, override: String?
  ) throws(ReferenceImageError) -> FolderPlace {
    guard folder == nil else {
      return try locate(filePath: filePath, folder: folder, override: override)
    }
    let key = override.map { filePath + "\u{0}" + $0 } ?? filePath
    return try FolderPlaces.shared.place(for: key) { () throws(ReferenceImageError) in
      try locate(filePath: filePath, folder: nil, override: override)
    }
  }

  private static func locate(
    filePath: String, folder: URL?, override: String?
  ) throws(ReferenceImageError) -> FolderPlace {
    let testFile = URL(fileURLWithPath: filePath).standardizedFileURL
    guard let root = ReferenceLocation.packageRoot(above: testFile) else {
      throw .noPackageRoot(filePath: filePath)
    }
    let fileStem = testFile.deletingPathExtension().lastPathComponent
    let base: URL
    if let folder {
      base = ReferenceLocation.resolve(ReferenceLocation.packageRelativePath(folder), root: root)
    } else if let override {
      base = ReferenceLocation.resolve(override, root: root).appendingPathComponent(fileStem)
    } else {
      base = defaultFolder(of: testFile, root: root)
    }
    var folderPath = base.standardizedFileURL.path
    while folderPath.count > 1 && folderPath.hasSuffix("/") { folderPath.removeLast() }
    let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
    return FolderPlace(root: root, rootPath: rootPath, folder: folderPath)
  }

  /// The test file's folder in its target's reference root (`ReferenceLayout`), or the folder
  /// beside the file while only that one exists: references recorded there before the target's
  /// root held them keep verifying, and keep landing there, until they are moved. When both
  /// exist the target's root wins.
  private static func defaultFolder(of testFile: URL, root: URL) -> URL {
    let rootPath = root.standardizedFileURL.path
    let filePath = testFile.path
    let prefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
    guard filePath.hasPrefix(prefix) else {
      return testFile.deletingLastPathComponent()
        .appendingPathComponent(ReferenceLayout.folderName)
        .appendingPathComponent(testFile.deletingPathExtension().lastPathComponent)
    }
    let relative = String(filePath.dropFirst(prefix.count))
    let folder = root.appendingPathComponent(ReferenceLayout.folder(ofTestFile: relative))
    guard let beside = ReferenceLayout.besideFolder(ofTestFile: relative),
      !isFolder(folder), isFolder(root.appendingPathComponent(beside))
    else { return folder }
    return root.appendingPathComponent(beside)
  }

  private static func isFolder(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
      && isDirectory.boolValue
  }
}

/// The default reference folders found so far, by test file (and `IMAGE_REFERENCE_DIR`).
private final class FolderPlaces: @unchecked Sendable {
  static let shared = FolderPlaces()

  private let lock = NSLock()
  private var byKey: [String: FolderPlace] = [:]

  func place(
    for key: String, locate: () throws(ReferenceImageError) -> FolderPlace
  ) throws(ReferenceImageError) -> FolderPlace {
    lock.lock()
    defer { lock.unlock() }
    if let known = byKey[key] { return known }
    let place = try locate()
    byKey[key] = place
    return place
  }
}
