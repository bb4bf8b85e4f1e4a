import Foundation

/// What the fuzz targets share: running libFuzzer's driver, and replaying a corpus in normal
/// builds so every committed input stays a regression test.
public enum FuzzSupport {
  /// The inputs of a replay: files as given, folders as their visible files, sorted.
  /// - Parameter path: A file or folder.
  /// - Returns: The files to replay.
  public static func files(in path: String) -> [String] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder),
      isFolder.boolValue
    else { return [path] }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(path)/\($0)" }.filter {
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder)
        && !isFolder.boolValue
    }
  }

  /// Runs `check` over every file given, and every file directly inside every folder given;
  /// an unreadable file ends the process with status 1, naming it.
  /// - Parameters:
  ///   - paths: Files and folders.
  ///   - target: The fuzz target's name, for the closing line.
  ///   - check: The target's checks for one input.
  public static func replay(_ paths: [String], target: String, _ check: ([UInt8]) -> Void) {
    let files = paths.flatMap(files(in:))
    for file in files {
      guard let bytes = FileManager.default.contents(atPath: file) else {
        FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
        exit(1)
      }
      check([UInt8](bytes))
    }
    print("\(target): \(files.count) inputs replayed, no failure")
  }
}

#if FUZZING
  @_extern(c, "LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafeRawPointer, Int) -> CInt
  ) -> CInt

  /// The running target's checks: a C callback cannot capture them, so `runLibFuzzer` keeps
  /// them here before the driver starts. One target runs per process.
  nonisolated(unsafe) private var fuzzTarget: ([UInt8]) -> Void = { _ in }

  /// libFuzzer's entry point for one input, for every target.
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    fuzzTarget([UInt8](UnsafeRawBufferPointer(start: start, count: count)))
    return 0
  }

  extension FuzzSupport {
    /// Starts libFuzzer's driver on a target's checks. SwiftPM links an executable's `main` to
    /// `<target>_main` (so tests can import executables), which hides libFuzzer's own `main`;
    /// each target's `<target>_main` calls this instead.
    public static func runLibFuzzer(
      _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
      _ check: @escaping ([UInt8]) -> Void
    ) -> CInt {
      fuzzTarget = check
      var argc = argc
      var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
      return runFuzzerDriver(&argc, &argv) { start, count in fuzzOneInput(start, count) }
    }
  }
#endif
