import Foundation
import FuzzSupport
import ReferenceImports

/// A libFuzzer target for reading result bundles: zstd decompression under a limit, the typed
/// object parser, and the object graph walk from the root to the attachments and their
/// payloads. The input is split at zero bytes into objects `0~c0`, `0~c1`, … (zstd or plain),
/// held in memory, the first being the root, so references between them can be found. Any input may
/// be refused with an `ImportError` naming the bundle and an object; none may crash, loop or
/// pass the limits.
///
/// Built with `-Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer` (see `Scripts/fuzz`) it is a
/// libFuzzer binary; in a normal build it replays files and folders given as arguments.
enum ResultBundleFuzz {
  static let limits = ImportLimits(
    maximumObjectBytes: 1 << 20, maximumPayloadBytes: 1 << 20, maximumNesting: 64,
    maximumReferenceDepth: 8, maximumObjects: 64, maximumAttachments: 64)

  /// Named in refusals; never created: the objects are held in memory.
  static let bundle = URL(fileURLWithPath: "/fuzz/Run.xcresult")

  static func run(_ input: [UInt8]) {
    let text = ImportFuzzing.decompress(input, limit: limits.maximumObjectBytes) ?? input
    _ = ImportFuzzing.parse(text, maximumNesting: limits.maximumNesting)
    let chunks = input.split(separator: 0, omittingEmptySubsequences: false).prefix(16)
    var objects: [String: [UInt8]] = [:]
    for (index, chunk) in chunks.enumerated() { objects["0~c\(index)"] = Array(chunk) }
    if let error = ImportFuzzing.walk(
      objects: objects, root: "0~c0", bundle: bundle, limits: limits),
      error.container != bundle.path || error.object.isEmpty || error.reason.isEmpty
    {
      fatalError("a refusal that names nothing: \(error)")
    }
  }
}

#if FUZZING
  /// Starts libFuzzer on this target's checks (see `FuzzSupport.runLibFuzzer`).
  @_cdecl("FuzzResultBundle_main")
  public func fuzzerMain(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  ) -> CInt {
    FuzzSupport.runLibFuzzer(argc, argv, ResultBundleFuzz.run)
  }
#else
  @main
  struct FuzzResultBundleReplay {
    /// Replays every file given, and every file directly inside every folder given.
    static func main() {
      FuzzSupport.replay(
        Array(CommandLine.arguments.dropFirst()), target: "FuzzResultBundle", ResultBundleFuzz.run)
    }
  }
#endif
