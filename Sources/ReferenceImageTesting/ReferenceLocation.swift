import Foundation
import ReferenceContracts

/// Where one reference image lives: its absolute path, and its path relative to the package
/// root, which is how archives and manifests name it.
///
/// By default a test file `Tests/ChartTests/BarChartTests.swift` keeps its references in
/// `Tests/ChartTests/__References__/BarChartTests/`, one PNG per name.
public struct ReferenceLocation: Sendable, Hashable, CustomStringConvertible {
  /// The package root: the nearest folder above the test file holding a `Package.swift`.
  public let packageRoot: URL
  /// The path relative to `packageRoot`, with `/` separators.
  public let relativePath: String

  /// The absolute file URL.
  public var url: URL { packageRoot.appendingPathComponent(relativePath) }

  public var description: String { relativePath }

  /// The folder name used beside each test file.
  public static let folderName = "__References__"

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
    let testFile = URL(fileURLWithPath: filePath).standardizedFileURL
    guard let root = Self.packageRoot(above: testFile) else {
      throw .noPackageRoot(filePath: filePath)
    }
    let fileStem = testFile.deletingPathExtension().lastPathComponent
    let base: URL
    if let folder {
      base = Self.resolve(Self.packageRelativePath(folder), root: root)
    } else if let override = environment[Self.environmentVariable], !override.isEmpty {
      base = Self.resolve(override, root: root).appendingPathComponent(fileStem)
    } else {
      base = testFile.deletingLastPathComponent()
        .appendingPathComponent(Self.folderName).appendingPathComponent(fileStem)
    }
    let absolute = base.appendingPathComponent(name + ".png").standardizedFileURL
    let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
    guard absolute.path.hasPrefix(rootPath) else {
      throw .outsidePackage(path: absolute.path, packageRoot: root.path)
    }
    self.packageRoot = root
    self.relativePath = String(absolute.path.dropFirst(rootPath.count))
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
  private static func packageRelativePath(_ folder: URL) -> String {
    let relative = folder.relativePath
    guard !relative.hasPrefix("/") else { return relative }
    guard let base = folder.baseURL else { return relative }
    let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    return base.standardizedFileURL.path == cwd.standardizedFileURL.path ? relative : folder.path
  }

  private static func resolve(_ path: String, root: URL) -> URL {
    path.hasPrefix("/")
      ? URL(fileURLWithPath: path) : root.appendingPathComponent(path)
  }

  /// The nearest folder at or above `file`'s folder that holds a `Package.swift`.
  static func packageRoot(above file: URL) -> URL? {
    var folder = file.deletingLastPathComponent()
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
