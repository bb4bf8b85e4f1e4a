import ArgumentParser
import Foundation
import ReferenceContracts
import ReferenceMerge

/// The command line as one value, read once: the merge options, with the `--include-from`
/// file's patterns and bound lines (the one read of that file), the sources and the destination
/// as typed, and how a person runs this program again. The commands printed for a person are
/// rendered from it: the prune command here, the review page's land command by the session
/// from the same options (`MergeOptions.landingWords`).
struct MergeInvocation {
  /// The options that decide what lands.
  var options = MergeOptions()
  /// The SOURCE arguments, as typed.
  var sourcePaths: [String]
  /// The DESTINATION argument, as typed.
  var destinationPath: String
  /// The words that run this program again (`invocationWords`).
  var program: [String]
  /// Whether every SOURCE is a shard folder whose records must prove the plan.
  var requireShards: Bool
  /// The patterns given with `--include`; the file's are named by `includeFrom` instead.
  var typedIncludes: [String]
  /// The `--include-from` file, as typed.
  var includeFrom: String?

  /// Reads the command line, and the `--include-from` file when one is given.
  /// - Throws: `ValidationError` naming the include file (and line) when it cannot be read.
  init(_ command: MergeRefs) throws(ValidationError) {
    sourcePaths = Array(command.paths.dropLast())
    destinationPath = command.paths[command.paths.count - 1]
    program = invocationWords(destination: destinationPath)
    requireShards = command.requireShards
    typedIncludes = command.include
    includeFrom = command.includeFrom
    options.onConflict = command.onConflict
    options.prune = command.prune
    options.requireComplete = command.requireComplete
    options.keepGoing = command.keepGoing
    options.compact = command.compact
    // Shard batches run selected tests by design; the records prove the plan whole instead.
    if requireShards { options.orphanProof = .shardRecords }
    if let includeFrom {
      do {
        let file = try IncludeFilter.read(fileAt: URL(fileURLWithPath: includeFrom))
        options.include = IncludeFilter(
          patterns: typedIncludes + file.patterns, approvals: file.approvals)
      } catch {
        throw ValidationError("\(error)")
      }
    } else if !typedIncludes.isEmpty {
      options.include = IncludeFilter(patterns: typedIncludes)
    }
  }

  /// The package root, absolute.
  var destination: URL { URL(fileURLWithPath: destinationPath).standardizedFileURL }

  /// This merge again with `--prune`: the options that decide what lands and what counts as an
  /// orphan, the sources and the destination as they were typed, each word shell-quoted; the
  /// options that only change what is printed or written beside (`--json`, `--report`, …) and
  /// those that write nothing (`--dry-run`, `--check`) are left out.
  var pruneCommand: String {
    var pruning = options
    pruning.prune = false
    var words = program + pruning.landingWords
    if requireShards { words.append("--require-shards") }
    for pattern in typedIncludes { words += ["--include", pattern] }
    if let includeFrom { words += ["--include-from", includeFrom] }
    return ShellWord.line(words + ["--prune"] + sourcePaths + [destinationPath])
  }
}

/// How this program was started, absolute when it was given as a path, so the review page's
/// command runs from any folder.
var invocationName: String {
  let name = CommandLine.arguments.first ?? "merge-refs"
  return name.contains("/") ? URL(fileURLWithPath: name).standardizedFileURL.path : name
}

/// How a person runs this program again: `swift run merge-refs` when it is the build of the
/// package it lands in, run from that package's root (under its `.build`, as `swift run` and
/// the plugin's copy are), which works where a build path would go stale; else
/// `invocationName`, which works from any folder.
private func invocationWords(destination: String) -> [String] {
  let path = invocationName
  let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL
  let names = ["merge-refs", "merge-refs-tool"]
  guard path.hasPrefix(here.path + "/.build/"),
    names.contains((path as NSString).lastPathComponent),
    URL(fileURLWithPath: destination).standardizedFileURL.path == here.path
  else { return [path] }
  return ["swift", "run", "merge-refs"]
}
