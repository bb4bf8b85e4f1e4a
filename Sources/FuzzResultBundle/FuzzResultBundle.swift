import Foundation
import FuzzSupport
import ReferenceImports

/// A libFuzzer target for reading result bundles: zstd decompression under a limit, the typed
/// object parser, and the object graph walk from `Info.plist` to the attachments. The input is
/// split at zero bytes into objects `0~c0`, `0~c1`, … of a bundle (stored as given, zstd or
/// plain), the first being the root, so references between them can be found. Any input may
/// be refused with an `ImportError` naming the bundle and an object; none may crash, loop or
/// pass the limits.
///
/// Built with `-Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer` (see `Scripts/fuzz`) it is a
/// libFuzzer binary; in a normal build it replays files and folders given as arguments.
enum ResultBundleFuzz {
  static let limits = ImportLimits(
    maximumObjectBytes: 1 << 20, maximumPayloadBytes: 1 << 20, maximumNesting: 64,
    maximumReferenceDepth: 8, maximumObjects: 64, maximumAttachments: 64)

  /// One bundle folder per process, rewritten for each input.
  static let bundle = FileManager.default.temporaryDirectory
    .appendingPathComponent("fuzz-result-bundle-\(getpid()).xcresult")

  static func run(_ input: [UInt8]) {
    let text = ImportFuzzing.decompress(input, limit: limits.maximumObjectBytes) ?? input
    _ = ImportFuzzing.parse(text, maximumNesting: limits.maximumNesting)
    walk(
      objects: input.split(separator: 0, omittingEmptySubsequences: false).prefix(16).map(
        Array.init))
  }

  /// Writes the objects as a bundle and reads its attachments and their payloads.
  static func walk(objects: [[UInt8]]) {
    let data = bundle.appendingPathComponent("Data")
    try? FileManager.default.removeItem(at: bundle)
    try? FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    for (index, object) in objects.enumerated() {
      try? Data(object).write(to: data.appendingPathComponent("data.0~c\(index)"))
    }
    let plist = """
      <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>rootId</key>\
      <dict><key>hash</key><string>0~c0</string></dict></dict></plist>
      """
    try? Data(plist.utf8).write(to: bundle.appendingPathComponent("Info.plist"))
    do {
      let reader = try ResultBundle(url: bundle, limits: limits)
      for attachment in try reader.attachments() {
        guard case .object(let id) = attachment.payload else { fatalError("not an object") }
        _ = try? reader.payload(id)
      }
    } catch {
      guard error.container == bundle.path, !error.object.isEmpty, !error.reason.isEmpty else {
        fatalError("a refusal that names nothing: \(error)")
      }
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
      try? FileManager.default.removeItem(at: ResultBundleFuzz.bundle)
    }
  }
#endif
