import ArgumentParser
import Foundation
import ProcessSupport
import ReferenceArchive
import ReferenceStore

/// `reference-store`: moves a package's references into the store its `ReferenceStore.json`
/// names and back, fills the local cache, and lists the objects no pointer names. Parsing and
/// printing only; the decisions live in `StoreMigration`.
@main
struct ReferenceStoreCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reference-store",
    abstract: "Keep a package's reference PNGs in a store, with small pointer files in git.",
    discussion: """
      The package's ReferenceStore.json names the store (a folder, an HTTP server, or an S3 \
      bucket); credentials come from the environment only. Each reference chart.png becomes \
      a pointer chart.png.ref holding its pixel digests and the SHA-256 of the PNG, which is \
      the stored object's name. Verify runs whose renders match their pointers read neither \
      the store nor the network.

      Exit codes:
        0   success
        1   some files failed (named; each left as it was)
        64  invalid arguments
      """,
    subcommands: [Migrate.self, Restore.self, Fetch.self, Unused.self])
}

/// The options every subcommand shares.
struct PackageOptions: ParsableArguments {
  @Option(help: ArgumentHelp("The package's root folder.", valueName: "folder"))
  var packagePath = "."

  var root: URL { URL(fileURLWithPath: packagePath, isDirectory: true).standardizedFileURL }

  /// The package's configuration.
  func configuration() throws -> StoreConfiguration {
    do {
      guard let configuration = try StoreConfiguration.read(packageRoot: root) else {
        throw ValidationError(
          "\(root.path) has no \(StoreConfiguration.fileName); write one naming the store "
            + "(see `reference-store --help`)")
      }
      return configuration
    } catch let error as StoreError {
      throw ValidationError(error.description)
    }
  }

  /// The package's store.
  func store() throws -> any ObjectStore {
    do {
      return try configuration().makeStore(environment: ProcessInfo.processInfo.environment)
    } catch let error as StoreError {
      throw ValidationError(error.description)
    }
  }

  /// The cache, with the store behind it.
  func objects() throws -> ObjectCache {
    let environment = ProcessInfo.processInfo.environment
    return ObjectCache(
      cache: FolderStore(folder: ObjectCache.defaultFolder(environment: environment)),
      store: try store())
  }

  /// Files and folders, relative to the working folder; the package root when none.
  func urls(_ paths: [String]) -> [URL] {
    paths.isEmpty ? [root] : paths.map { URL(fileURLWithPath: $0) }
  }
}

/// Prints what happened to the files; exits 1 when any failed.
func report(_ items: [StoreMigration.Item], verbose: Bool, summary: String) throws {
  for item in items {
    if case .failed(let reason) = item.outcome {
      FileHandle.standardError.write(Data("error: \(item.file.path): \(reason)\n".utf8))
    } else if verbose {
      print("\(item.file.path): \(item.outcome.word)")
    }
  }
  print(summary)
  if items.contains(where: { if case .failed = $0.outcome { true } else { false } }) {
    throw ExitCode(1)
  }
}

extension StoreMigration.Item.Outcome {
  var word: String {
    switch self {
    case .moved(let uploaded): uploaded ? "uploaded, pointer written" : "pointer written"
    case .restored: "restored"
    case .fetched(let fromStore): fromStore ? "fetched" : "already cached"
    case .finished: "finished an interrupted run"
    case .planned: "would be done"
    case .failed(let reason): "failed: \(reason)"
    }
  }
}

/// A progress line on a terminal's standard error; nothing in logs and pipes.
func progress(_ verb: String) -> @Sendable (Int, Int) -> Void {
  guard isatty(STDERR_FILENO) == 1 else { return { _, _ in } }
  return { done, total in
    FileHandle.standardError.write(Data("\r\u{1B}[K\(verb) \(done)/\(total)".utf8))
    if done == total { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
  }
}

func count(_ items: [StoreMigration.Item], _ matches: (StoreMigration.Item.Outcome) -> Bool)
  -> Int
{
  items.filter { matches($0.outcome) }.count
}

struct Migrate: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Move PNG references into the store, each replaced by its pointer.",
    discussion: """
      Each PATH is a PNG file or a folder searched for .png files (hidden folders skipped). \
      Each PNG is uploaded, checked in the store, replaced by its pointer, and removed: \
      commit the pointers and the removals (`git add -A PATH`).
      """)

  @OptionGroup var package: PackageOptions
  @Argument(help: ArgumentHelp("Reference PNGs and folders of them.", valueName: "path"))
  var paths: [String] = []
  @Flag(help: "Say what would be moved; upload and write nothing.") var dryRun = false
  @Flag(help: "Print every file.") var verbose = false

  func validate() throws {
    guard !paths.isEmpty else {
      throw ValidationError("give the reference folders to migrate, such as Tests")
    }
  }

  func run() throws {
    let files: [URL]
    do {
      files = try FileSystem.pngFiles(in: paths.map { URL(fileURLWithPath: $0) })
    } catch {
      throw ValidationError(error.description)
    }
    let items = StoreMigration.migrate(
      files, to: try package.store(), dryRun: dryRun, progress: progress("migrating"))
    let moved = count(items) { if case .moved = $0 { true } else { $0 == .finished } }
    let uploaded = count(items) { $0 == .moved(uploaded: true) }
    let summary =
      dryRun
      ? "would migrate \(count(items) { $0 == .planned }) of \(items.count) PNG files"
      : "migrated \(moved) of \(items.count) PNG files (\(uploaded) objects uploaded, "
        + "\(moved - uploaded) already stored)"
    try report(items, verbose: verbose, summary: summary)
  }
}

struct Restore: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Bring stored references back as PNG files, each replacing its pointer.",
    discussion: """
      Each PATH is a pointer file (.png.ref) or a folder searched for them; the package root \
      when none is given. Each PNG is byte-identical to the one migrated (checked against \
      its key).
      """)

  @OptionGroup var package: PackageOptions
  @Argument(help: ArgumentHelp("Pointer files and folders of them.", valueName: "path"))
  var paths: [String] = []
  @Flag(help: "Say what would be restored; write nothing.") var dryRun = false
  @Flag(help: "Print every file.") var verbose = false

  func run() throws {
    let pointers = try pointerFiles(package.urls(paths))
    let items = StoreMigration.restore(
      pointers, from: try package.objects(), dryRun: dryRun, progress: progress("restoring"))
    let summary =
      dryRun
      ? "would restore \(count(items) { $0 == .planned }) of \(items.count) references"
      : "restored \(count(items) { $0 == .restored || $0 == .finished }) of \(items.count) "
        + "references"
    try report(items, verbose: verbose, summary: summary)
  }
}

struct Fetch: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Fill the local cache with the objects the pointers name.",
    discussion: """
      The cache is IMAGE_REFERENCE_CACHE, else $XDG_CACHE_HOME/reference-images/objects, \
      else ~/.cache/reference-images/objects: the folder to keep in a CI cache step. Each \
      PATH is a pointer file or a folder searched for them; the package root when none.
      """)

  @OptionGroup var package: PackageOptions
  @Argument(help: ArgumentHelp("Pointer files and folders of them.", valueName: "path"))
  var paths: [String] = []
  @Flag(help: "Print every file.") var verbose = false

  func run() throws {
    let pointers = try pointerFiles(package.urls(paths))
    let objects = try package.objects()
    let items = StoreMigration.fetch(pointers, into: objects, progress: progress("fetching"))
    let fetched = count(items) { $0 == .fetched(fromStore: true) }
    let cached = count(items) { $0 == .fetched(fromStore: false) }
    try report(
      items, verbose: verbose,
      summary: "\(fetched) objects fetched, \(cached) already in \(objects.cache.name)")
  }
}

struct Unused: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the stored objects no pointer names; delete them with --delete.",
    discussion: """
      The pointers are those of the package's working tree and of each --revision (read \
      with git), so objects that a branch or a release still needs are kept: name every \
      revision you keep.
      """)

  @OptionGroup var package: PackageOptions
  @Option(name: .customLong("revision"), help: "A git revision whose pointers count too.")
  var revisions: [String] = []
  @Flag(help: "Delete the objects listed.") var delete = false

  func run() throws {
    var named = Set<ObjectKey>()
    for file in try pointerFiles([package.root]) {
      let pointer = try ReferencePointer(parsing: try FileSystem.read(file), path: file.path)
      named.insert(pointer.object)
    }
    for revision in revisions { named.formUnion(try objects(in: revision)) }
    let store = try package.store()
    let unused = try StoreMigration.unused(in: store, named: named)
    for key in unused { print(key.hex) }
    if delete {
      for key in unused { try store.delete(key) }
      print("deleted \(unused.count) objects no pointer names from \(store.name)")
    } else {
      print("\(unused.count) objects in \(store.name) no pointer names; --delete removes them")
    }
  }

  /// The objects the pointers of a git revision name (`git grep` of their `object` lines).
  private func objects(in revision: String) throws -> Set<ObjectKey> {
    let git = URL(fileURLWithPath: "/usr/bin/env")
    let output = try ChildProcess.capture(
      git,
      [
        "git", "-C", package.root.path, "grep", "-h", "-I", "^object ", revision, "--",
        "*.png.ref",
      ])
    // git grep exits 1 when nothing matches.
    guard output.status == 0 || output.status == 1 else {
      throw ValidationError("git could not read revision \(revision): \(output.error)")
    }
    return Set(
      output.output.split(separator: "\n").compactMap { line in
        line.split(separator: " ").last.flatMap { ObjectKey($0) }
      })
  }
}

func pointerFiles(_ urls: [URL]) throws -> [URL] {
  do {
    return try StoreMigration.pointerFiles(in: urls)
  } catch {
    throw ValidationError(error.description)
  }
}
