import Foundation
import ReferenceArchive
import ReferenceContracts

/// A zip file: a coordinator archive, or any zip of PNGs at package-relative paths.
public struct ArchiveFile: MergeSourceKind {
  /// The zip's path, not a `URL` object: a fleet merges thousands of archives, and a `URL`
  /// each is memory that shows at that size.
  public let path: String

  /// The zip at a file URL.
  public init(url: URL) { path = url.path }

  /// The zip.
  public var url: URL { URL(fileURLWithPath: path) }

  public var description: String { path }
  public var fileURL: URL { url }

  /// Opens any file: a zip holding only zips (an artifact as downloaded) is one
  /// `NestedArchive` per inner zip; anything else is one archive, which fails when read if it
  /// is no zip.
  public static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]? {
    guard !argument.isFolder else { return nil }
    let url = argument.url
    var innerZips: [String] = []
    var hasOtherEntries = false
    var bundle = ZippedResultBundle()
    let sort = { (entry: ArchiveEntry) in
      if entry.path.lowercased().hasSuffix(".zip") && entry.kind == .regularFile {
        innerZips.append(entry.path)
      } else if entry.kind != .directory {
        hasOtherEntries = true
        bundle.note(entry.path)
      }
    }
    do {
      // The central directory says it without visiting every entry, which costs libarchive a
      // 64 KiB read per entry.
      if let listing = ZipDirectory.entries(in: url) {
        listing.forEach(sort)
      } else {
        try ZipReader(limits: argument.limits).forEachEntry(
          in: .file(url), headersOnly: true, sort)
      }
    } catch {
      // A zip that cannot be read (truncated, not a zip) stays one source: reading it fails
      // again, and the planner lists it as a refused source, so `--keep-going` reports it in
      // its exit code and orphans are not looked for without it.
      return [MergeSource(ArchiveFile(url: url))]
    }
    if let refusal = bundle.refusal(of: url) { throw refusal }
    if !innerZips.isEmpty && !hasOtherEntries {
      return innerZips.sorted().map { MergeSource(NestedArchive(outer: url, entry: $0)) }
    }
    return [MergeSource(ArchiveFile(url: url))]
  }

  /// The zip's entries. When its manifest comes first and, once it is read, no other entry's
  /// data is wanted (a rerun into an up-to-date tree), the rest is listed from the central
  /// directory, without visiting each entry (libarchive reads a 64 KiB block per entry it
  /// visits, even to skip it).
  public func forEachEntry(
    limits: ArchiveLimits, wantsData: (String) -> Bool,
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    let url = url  // made once: `url` makes a new `URL` each time it is asked
    let reader = ZipReader(limits: limits)
    guard let listing = ZipDirectory.entries(in: url),
      listing.first?.path == ArchiveManifest.entryName,
      listing.count <= limits.maximumEntryCount,
      let manifest = try MergeError.catching({ () throws(ArchiveError) in
        try reader.firstEntry(in: .file(url))
      }),
      manifest.path == ArchiveManifest.entryName
    else {
      try reader.forEachEntry(
        in: .file(url), wantsData: wantsData, failure: MergeError.archive, body)
      return
    }
    try body(manifest)
    let rest = listing.dropFirst()
    if rest.allSatisfy({ !wantsData($0.path) }) {
      for entry in rest {
        // Asked again right before each entry, as a full read does.
        _ = wantsData(entry.path)
        try body(entry)
      }
      return
    }
    var isFirst = true
    try reader.forEachEntry(
      in: .file(url), wantsData: { !isFirst && wantsData($0) }, failure: MergeError.archive
    ) { (entry) throws(MergeError) in
      guard !isFirst else {
        isFirst = false
        return
      }
      try body(entry)
    }
  }

  /// Whether the manifest may come after images: when the directory lists it, or cannot be
  /// read.
  public func manifestMayFollowImages() -> Bool {
    ZipDirectory.containsEntry(ArchiveManifest.entryName, in: .file(url)) ?? true
  }
}

/// A result bundle zipped whole (a CI artifact as downloaded): `Info.plist` and `Data/data.*`
/// at the zip's root, or below a `Name.xcresult/` folder. Its objects are read from a folder
/// only, so it is refused with the command that unzips it, never read as PNG entries.
struct ZippedResultBundle {
  private var infoPrefixes: Set<Substring> = []
  private var dataPrefixes: Set<Substring> = []

  /// Takes one entry path: only the two names a bundle must hold are remembered. Byte
  /// comparisons at the path's end, since a zip may list 100,000 entries.
  mutating func note(_ path: String) {
    let bytes = path.utf8
    if bytes.count >= 10, bytes.suffix(10).elementsEqual("Info.plist".utf8) {
      infoPrefixes.insert(path.dropLast(10))
      return
    }
    // `<prefix>Data/data.<id>`: the last component starts with `data.`, in a `Data` folder.
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")),
      bytes[bytes.index(after: slash)...].starts(with: "data.".utf8)
    else { return }
    let folder = path[..<slash]
    guard folder == "Data" || folder.hasSuffix("/Data") else { return }
    dataPrefixes.insert(folder.dropLast(4))
  }

  /// The refusal, when the zip holds a bundle: the folder it is in, and how to unzip it.
  func refusal(of zip: URL) -> MergeError? {
    guard let prefix = infoPrefixes.intersection(dataPrefixes).sorted().first else { return nil }
    let zipWord = ShellWord.quoted(zip.lastPathComponent)
    let fix: String
    if prefix.isEmpty {
      let folder = zip.deletingPathExtension().lastPathComponent
      let name = folder.hasSuffix(".xcresult") ? folder : folder + ".xcresult"
      fix =
        "mkdir \(ShellWord.quoted(name)) && unzip -q \(zipWord) -d \(ShellWord.quoted(name))"
        + ", then pass \(ShellWord.quoted(name))"
    } else {
      fix = "unzip -q \(zipWord), then pass \(ShellWord.quoted(String(prefix.dropLast())))"
    }
    return .refusedEntry(
      source: zip.path, entry: String(prefix) + "Info.plist",
      reason: "a zipped Xcode result bundle: merge-refs reads a bundle from its folder; "
        + "unzip it first: \(fix)")
  }
}

/// A zip stored as an entry of another zip (an artifact zip holding the workers' archives).
public struct NestedArchive: MergeSourceKind {
  /// The outer zip.
  public let outer: URL
  /// The inner zip's entry path.
  public let entry: String

  public var description: String { "\(outer.path)!\(entry)" }
  public var fileURL: URL { outer }

  /// Never opened from an argument: `ArchiveFile` finds them inside the outer zip.
  public static func open(_ argument: MergeSource.Argument) throws(MergeError) -> [MergeSource]? {
    nil
  }

  /// The inner zip is read into memory from the outer one, then its entries are read.
  public func forEachEntry(
    limits: ArchiveLimits, wantsData: (String) -> Bool,
    _ body: (ArchiveEntry) throws(MergeError) -> Void
  ) throws(MergeError) {
    let reader = ZipReader(limits: limits)
    var inner: [UInt8]?
    try MergeError.catching { () throws(ArchiveError) in
      try reader.forEachEntry(in: .file(outer)) { entry in
        if entry.path == self.entry && inner == nil { inner = entry.bytes }
      }
    }
    guard let inner else {
      throw .io(operation: "find \(entry) inside", path: outer.path, message: "no such entry")
    }
    try reader.forEachEntry(
      in: .memory(inner, name: description), wantsData: wantsData,
      failure: MergeError.archive, body)
  }

  public func manifestMayFollowImages() -> Bool { true }
}
