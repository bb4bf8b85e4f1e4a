import Foundation
import FuzzSupport
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge

/// A libFuzzer target for what `merge-refs` does with an archive: `ZipReader` over the bytes in
/// memory, then the same bytes as a zip file through `MergeSource.expand`, `MergePlanner` and,
/// when the plan may be applied, `MergeApplier` into a scratch package.
///
/// Any input may be refused; none may crash, and the merge's promises must hold: every planned
/// path is safe, only valid PNGs land, nothing is written outside the destination, and merging
/// the same input again changes nothing.
///
/// Built with `-Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer` (see `Scripts/fuzz`) it is a
/// libFuzzer binary; in a normal build it replays files and folders given as arguments, and
/// `--write-seeds FOLDER` writes the seed archives committed in `Tests/Fuzz/ArchiveMerge`.
enum ArchiveMergeFuzz {
  /// Small limits, so an input that declares gigabytes is refused at once.
  static let options: MergeOptions = {
    var options = MergeOptions()
    options.limits = ArchiveLimits(
      maximumEntryBytes: 1 << 20, maximumTotalBytes: 4 << 20, maximumCompressionRatio: 100,
      maximumEntryCount: 1000)
    return options
  }()

  /// The reference every scratch package starts with; the seeds keep it, change it or add
  /// beside it.
  static let existingPath = "Tests/ChartTests/__References__/BarChartTests/bars.png"

  /// This process's scratch folder: `input.zip` and the destination package, nothing else.
  static let sandbox = FileManager.default.temporaryDirectory.appendingPathComponent(
    "FuzzArchiveMerge-\(getpid())")
  static let input = sandbox.appendingPathComponent("input.zip")
  static let package = sandbox.appendingPathComponent("package")

  static func run(_ bytes: [UInt8]) {
    var entries = 0
    let read: Void? = try? ZipReader(limits: options.limits).forEachEntry(
      in: .memory(bytes, name: "input")
    ) { _ in entries += 1 }
    // ZipReader checks CRCs itself, with libarchive's check off: what it reads whole,
    // libarchive with its own check must read too.
    if read != nil, !LibArchiveAlone.readsEveryEntry(bytes) {
      fatalError("ZipReader read an archive that libarchive, checking CRCs, refuses")
    }
    // The scratch package is rebuilt only when a run may have changed it: most inputs are
    // refused, and rebuilding it every time halved the executions per second.
    if packageIsDirty() { resetPackage() }
    guard FileManager.default.createFile(atPath: input.path, contents: Data(bytes)) else {
      fatalError("cannot write \(input.path)")
    }
    let sources = (try? MergeSource.expand(input.path, limits: options.limits)) ?? []
    let plan = MergePlanner(options: options).plan(sources: sources, destination: package)
    for item in plan.items {
      if let reason = unsafeReason(item.path) {
        fatalError("the plan holds the unsafe path \(item.path.debugDescription): \(reason)")
      }
      let needsChoice = [.added, .updated, .unchanged].contains(item.outcome)
      if needsChoice != (item.chosen != nil) {
        fatalError(
          "\(item.path): outcome \(item.outcome) with chosen \(String(describing: item.chosen))")
      }
    }
    guard plan.badSources.isEmpty, plan.destinationProblems.isEmpty,
      plan.items(.conflict).isEmpty
    else { return }
    defer { resetPackage() }
    let result: MergeApplier.Result
    do {
      result = try MergeApplier(options: options).apply(plan)
    } catch {
      fatalError("applying a clean plan failed: \(error)")
    }
    for path in result.written {
      let bytes = FileManager.default.contents(atPath: package.appendingPathComponent(path).path)
      guard let bytes, (try? PNGDecoder().decode(bytes)) != nil else {
        fatalError("\(path) landed but is not a valid PNG")
      }
    }
    checkNothingOutsidePackage()
    let again = MergePlanner(options: options).plan(sources: sources, destination: package)
    let changes = again.items.filter { $0.outcome.writesFile }
    guard changes.isEmpty, again.badSources.isEmpty else {
      fatalError("a second merge of the same input does not converge: \(changes.map(\.path))")
    }
  }

  /// Why a planned path could escape the destination, or nil.
  static func unsafeReason(_ path: String) -> String? {
    if path.hasPrefix("/") { return "absolute" }
    if path.contains("\\") || path.utf8.contains(0) { return "backslash or NUL" }
    if path.split(separator: "/", omittingEmptySubsequences: false).contains(where: {
      $0 == ".." || $0 == "." || $0.isEmpty
    }) {
      return "climbs out or has empty components"
    }
    return nil
  }

  /// Every file in the sandbox is the input or inside the package.
  static func checkNothingOutsidePackage() {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.path)) ?? []
    for name in names where name != "input.zip" && name != "package" {
      fatalError("the merge wrote \(sandbox.path)/\(name) outside the destination")
    }
  }

  /// Whether the package holds anything but the one reference (a merge's hidden staging
  /// folder, say), or lacks it.
  static func packageIsDirty() -> Bool {
    let top = (try? FileManager.default.contentsOfDirectory(atPath: package.path)) ?? []
    let reference = FileManager.default.contents(
      atPath: package.appendingPathComponent(existingPath).path)
    return top != ["Tests"] || reference != Data(existingPNG)
  }

  /// Gives the package exactly one reference, `existingPath`, as the seeds expect.
  static func resetPackage() {
    try? FileManager.default.removeItem(at: sandbox)
    let reference = package.appendingPathComponent(existingPath)
    do {
      try FileManager.default.createDirectory(
        at: reference.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(existingPNG).write(to: reference)
    } catch {
      fatalError("cannot set up \(package.path): \(error)")
    }
  }

  static let existingPNG = png(width: 6, height: 4, shade: 40)

  /// A small image whose pixels depend on `shade`.
  static func png(width: Int, height: Int, shade: UInt8) -> [UInt8] {
    let pixels = (0..<(width * height * 4)).map { UInt8(truncatingIfNeeded: $0 * 7) &+ shade }
    do {
      return try PNGEncoder().encode(RGBAImage(width: width, height: height, pixels: pixels))
    } catch {
      fatalError("cannot encode a seed image: \(error)")
    }
  }
}

#if FUZZING
  /// Starts libFuzzer on this target's checks (see `FuzzSupport.runLibFuzzer`).
  @_cdecl("FuzzArchiveMerge_main")
  public func fuzzerMain(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  ) -> CInt {
    FuzzSupport.runLibFuzzer(argc, argv, ArchiveMergeFuzz.run)
  }
#else
  @main
  struct FuzzArchiveMergeReplay {
    /// Replays every file given, and every file directly inside every folder given; or, with
    /// `--write-seeds FOLDER`, writes the seed archives.
    static func main() throws {
      let arguments = Array(CommandLine.arguments.dropFirst())
      if arguments.first == "--write-seeds", arguments.count == 2 {
        try ArchiveMergeSeeds.write(to: URL(fileURLWithPath: arguments[1]))
        return
      }
      FuzzSupport.replay(arguments, target: "FuzzArchiveMerge", ArchiveMergeFuzz.run)
      try? FileManager.default.removeItem(at: ArchiveMergeFuzz.sandbox)
    }
  }
#endif
