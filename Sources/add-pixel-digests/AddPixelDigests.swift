import ArgumentParser
import Foundation
import ReferenceArchive

/// `add-pixel-digests`: gives reference PNGs written before the pixel digest existed their
/// `riDG` chunk, so verification can skip decoding them. Parsing and printing only; the
/// decisions live in `PixelDigestBackfill`.
@main
struct AddPixelDigests: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add-pixel-digests",
    abstract: "Add the pixel digest chunk to reference PNGs that lack one, changing no pixel.",
    usage: "add-pixel-digests [--check] PATH...",
    discussion: """
      Each PATH is a PNG file or a folder searched for .png files (hidden folders such as \
      .build and .git are skipped). A file without a valid digest, or with one of format \
      version 1 (which verification cannot check with the fast hash), gets one chunk of the \
      current version inserted before its image data; its image data and every other chunk \
      stay byte for byte, and the file is replaced atomically. Files that already carry a \
      valid current digest are left untouched, so a second run changes nothing.

      Exit codes:
        0   success; with --check, every file carries a valid digest
        1   some files could not be read, decoded or written; they are named and unchanged
        4   --check: some files lack a valid digest
        64  invalid arguments
      """)

  @Argument(help: ArgumentHelp("PNG files and folders of them.", valueName: "path"))
  var paths: [String] = []

  @Flag(help: "Report the files that lack a digest; write nothing.")
  var check = false

  func validate() throws {
    guard !paths.isEmpty else { throw ValidationError("give at least one file or folder") }
  }

  func run() throws {
    let urls = paths.map { URL(fileURLWithPath: $0) }
    let files: [URL]
    do {
      files = try FileSystem.pngFiles(in: urls)
    } catch {
      throw ValidationError(error.description)
    }
    let items = PixelDigestBackfill.plan(files)
    let lacking = items.filter { if case .needsDigest = $0.decision { true } else { false } }
    let present = items.count(where: { $0.decision == .hasDigest })
    let unreadable: [(file: URL, reason: String)] = items.compactMap { item in
      guard case .unreadable(let reason) = item.decision else { return nil }
      return (item.file, reason)
    }
    var failures = unreadable
    if check {
      for item in lacking { print("no pixel digest: \(item.file.path)") }
      print(
        "\(lacking.count) of \(items.count) PNG files lack a pixel digest; "
          + "\(present) have one; \(unreadable.count) could not be read")
    } else {
      let unwritten = PixelDigestBackfill.apply(lacking)
      failures += unwritten
      print(
        "added a pixel digest to \(lacking.count - unwritten.count) PNG files; "
          + "\(present) already had one; \(failures.count) failed")
    }
    for failure in failures {
      printError("error: \(failure.file.path): \(failure.reason); skipped, the file is unchanged")
    }
    if !failures.isEmpty { throw ExitCode(1) }
    if check && !lacking.isEmpty {
      printError("run `swift run add-pixel-digests \(paths.joined(separator: " "))` to add them")
      throw ExitCode(4)
    }
  }

  private func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }
}
