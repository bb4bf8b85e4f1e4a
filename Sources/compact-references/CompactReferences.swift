import ArgumentParser
import Foundation
import ReferenceArchive

/// `compact-references`: rewrites reference PNGs in the smallest lossless form, pixels checked
/// equal before each file is replaced. Parsing and printing only; the decisions live in
/// `CompactRewrite`.
@main
struct CompactReferences: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "compact-references",
    abstract: "Rewrite reference PNGs in the smallest lossless form, changing no pixel.",
    usage: "compact-references [--dry-run] [--include-other-tools] [--verbose] PATH...",
    discussion: """
      Each PATH is a PNG file or a folder searched for .png files (hidden folders such as \
      .build and .git are skipped). Each file is decoded and encoded again with the colour \
      type reduced where no pixel changes (a palette for at most 256 colours, grey, no alpha \
      when opaque), row filters chosen for size and libdeflate's strongest level, with the \
      pixel digest. The new file is decoded and compared with the old pixels, and replaces \
      the old one atomically only when it is smaller; a second run changes nothing.

      Files without a valid pixel digest were written by another tool (or before this \
      package wrote one) and may hold chunks you want, such as a colour profile: they are \
      left alone unless --include-other-tools is given. Files of 16-bit samples are always \
      left alone.

      Exit codes:
        0   success
        1   some files could not be read, decoded or written (named; left unchanged)
        64  invalid arguments
      """)

  @Argument(help: ArgumentHelp("PNG files and folders of them.", valueName: "path"))
  var paths: [String] = []

  @Flag(help: "Print the bytes that would be saved; write nothing.")
  var dryRun = false

  @Flag(help: "Also rewrite PNGs without a pixel digest (written by other tools).")
  var includeOtherTools = false

  @Flag(help: "Print every file that is (or would be) compacted.")
  var verbose = false

  func validate() throws {
    guard !paths.isEmpty else { throw ValidationError("give at least one file or folder") }
  }

  func run() throws {
    let files: [URL]
    do {
      files = try FileSystem.pngFiles(in: paths.map { URL(fileURLWithPath: $0) })
    } catch {
      throw ValidationError(error.description)
    }
    let items = CompactRewrite.run(
      files, includingOtherTools: includeOtherTools, dryRun: dryRun)
    let verb = dryRun ? "would compact" : "compacted"
    var before = 0
    var after = 0
    var compacted = 0
    for item in items {
      guard case .compacted(let old, let new) = item.outcome else { continue }
      (before, after, compacted) = (before + old, after + new, compacted + 1)
      if verbose { print("\(verb) \(item.file.path): \(old) → \(new) bytes") }
    }
    let saved = before - after
    let percent = before == 0 ? 0 : Double(saved) * 100 / Double(before)
    print(
      "\(verb) \(compacted) of \(items.count) PNG files: \(before) → \(after) bytes, "
        + "\(saved) saved (\(String(format: "%.1f", percent))%)")
    printSkipped(items)
    let failures = items.compactMap { item -> (URL, String)? in
      guard case .failed(let reason) = item.outcome else { return nil }
      return (item.file, reason)
    }
    for (file, reason) in failures {
      printError("error: \(file.path): \(reason); skipped, the file is unchanged")
    }
    if !failures.isEmpty { throw ExitCode(1) }
  }

  /// One line per kind of file left alone, when there are some.
  private func printSkipped(_ items: [CompactRewrite.Item]) {
    let alreadyCompact = items.count {
      if case .alreadyCompact = $0.outcome { true } else { false }
    }
    let otherTools = items.count { $0.outcome == .writtenByAnotherTool }
    let sixteenBit = items.count { $0.outcome == .sixteenBit }
    if alreadyCompact > 0 { print("\(alreadyCompact) already compact, unchanged") }
    if otherTools > 0 {
      print(
        "\(otherTools) without a pixel digest (written by another tool), unchanged; "
          + "add --include-other-tools to compact them too")
    }
    if sixteenBit > 0 {
      print("\(sixteenBit) of 16-bit samples, unchanged: 8 bits would drop their low bytes")
    }
  }

  private func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }
}
