import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceStore

/// The package tree a merge writes to, and the only code that touches it.
///
/// Every path is resolved through directory handles from a handle on the package root, never
/// as a path string: on Linux one `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` per
/// folder where the kernel has it, else `openat` with `O_NOFOLLOW | O_DIRECTORY` per
/// component. Handles are cached per folder, so a folder swapped for a symbolic link after it
/// was opened is never followed: what is written lands in the folder that was checked (there is
/// no check-then-write gap). Files are written under a temporary name in their own folder and
/// renamed into place with `renameat`.
package final class Destination: @unchecked Sendable {
  /// The package root.
  package let root: URL
  let calls: FileCalls
  /// The root folder, opened once: every path is resolved beneath it.
  let rootHandle: Int32
  // Guards `folders`, `beneathWorks` and `digests`; held only around bookkeeping and folder
  // opening, never while a file is read or hashed.
  private let lock = NSLock()
  /// Open folder handles by package-relative path; `.some(nil)` for folders known missing.
  private var folders: [ExactPath: Int32?] = [:]
  private var beneathWorks = true
  private var digests: [ExactPath: SHA256Digest?] = [:]
  /// Digests of files from earlier runs, when the package has a `.build` folder to keep them.
  let digestCache: DigestCache?
  /// The package's store, when its references live outside the repository: then each
  /// reference is written as a pointer (`ReferencePointer`) and read through one.
  let storedReferences: StoredReferences?

  /// Opens the package root.
  /// - Parameters:
  ///   - root: The package root (the user named it, so a link to it is followed).
  ///   - calls: The system calls; tests replace some.
  /// - Throws: `MergeError.io` when the root cannot be opened.
  /// - Throws: `MergeError.store` when the package's `ReferenceStore.json` is not valid.
  package init(
    root: URL, calls: FileCalls = .system,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(MergeError) {
    self.root = root
    self.calls = calls
    do {
      storedReferences = try StoreConfiguration.read(packageRoot: root).map {
        StoredReferences(configuration: $0, environment: environment)
      }
    } catch {
      throw .store(error)
    }
    rootHandle = calls.openAt(AT_FDCWD, root.path, O_RDONLY | O_DIRECTORY)
    guard rootHandle >= 0 else {
      throw .io(operation: "open the destination folder", path: root.path, message: Self.reason())
    }
    digestCache = DigestCache(root: rootHandle, calls: calls)
  }

  deinit {
    for case let handle? in folders.values { _ = calls.close(handle) }
    _ = calls.close(rootHandle)
  }

  // MARK: Resolving

  /// The handle of a package-relative folder ("" is the root), or nil when it does not exist
  /// and `create` is false.
  /// - Parameter path: The file the folder is wanted for, named in errors.
  /// - Throws: `MergeError.refusedEntry` when a component is a symbolic link or not a folder.
  func folder(_ relative: String, create: Bool, for path: String) throws(MergeError) -> Int32? {
    lock.lock()
    defer { lock.unlock() }
    return try resolve(relative, create: create, for: path)
  }

  private func resolve(_ relative: String, create: Bool, for path: String) throws(MergeError)
    -> Int32?
  {
    if relative.isEmpty { return rootHandle }
    if let known = folders[ExactPath(relative)], known != nil || !create { return known }
    if beneathWorks {
      let handle = calls.openBeneath(rootHandle, relative, O_RDONLY | O_DIRECTORY)
      if handle >= 0 {
        folders[ExactPath(relative)] = handle
        return handle
      }
      // ENOSYS: an older kernel; EPERM: a seccomp filter (some containers) that refuses it.
      if errno == ENOSYS || errno == EPERM { beneathWorks = false }
      // Otherwise (missing, a link, not a folder) the walk below finds which component, to
      // create it or to name it.
    }
    let (parentPath, name) = Self.split(relative)
    guard let parent = try resolve(parentPath, create: create, for: path) else {
      folders[ExactPath(relative)] = .some(nil)
      return nil
    }
    var handle = calls.openAt(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    if handle < 0 && errno == ENOENT && create {
      guard calls.makeFolderAt(parent, name) == 0 || errno == EEXIST else {
        throw notWritten(path, .write, "creating the folder \(relative)", in: parentPath)
      }
      // Opened again without following links: what was created is checked, not assumed.
      handle = calls.openAt(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    }
    guard handle >= 0 else {
      let code = errno
      if code == ENOENT {
        folders[ExactPath(relative)] = .some(nil)
        return nil
      }
      if (code == ELOOP || code == ENOTDIR) && calls.statAt(parent, name)?.kind == .symbolicLink {
        throw refused(path, at: relative)
      }
      throw notWritten(
        path, create ? .write : .read, "opening the folder \(relative)", in: relative, code)
    }
    folders[ExactPath(relative)] = handle
    return handle
  }

  // MARK: Reading

  /// What is at a path, without following links; nil when nothing is (or its folder is
  /// missing).
  /// - Throws: `MergeError.refusedEntry` when a folder on the way is a symbolic link.
  package func status(_ path: String) throws(MergeError) -> FileStatus? {
    let (folderPath, name) = Self.split(path)
    guard let folder = try folder(folderPath, create: false, for: path) else { return nil }
    return calls.statAt(folder, name)
  }

  /// Checks that a path can be written safely: a valid entry path, no symbolic link on the
  /// way, and not a link itself.
  /// - Parameter knownRegularFile: Whether the path, valid, was read as a regular file beneath
  ///   the root (no link on the way), so it needs no check again: validating every path a
  ///   second time (`EntryPath.validate`) would show in an up-to-date rerun's time.
  /// - Throws: `MergeError.refusedEntry` naming the link.
  package func checkWritable(_ path: String, knownRegularFile: Bool = false) throws(MergeError) {
    if storedReferences != nil { try checkPointer(path) }
    guard !knownRegularFile else { return }
    if let reason = EntryPath.validate(path) {
      throw .refusedEntry(source: root.path, entry: path, reason: reason)
    }
    do throws(MergeError) {
      if try knownKind(path) == .symbolicLink { throw refused(path, at: path) }
    } catch {
      // Anything but a link (a file where a folder should be, a folder that cannot be opened)
      // is a write failure when applying, not refused input.
      if case .refusedEntry = error { throw error }
    }
  }

  /// The kind of file at a path. A path with a known digest is a regular file, so checking a
  /// path the planner read costs no system call; a table of what else was learned about each
  /// path would cost a rerun of many archives 150 bytes an image.
  private func knownKind(_ path: String) throws(MergeError) -> FileStatus.Kind? {
    lock.lock()
    let known = digests[ExactPath(path)]
    lock.unlock()
    if case .some(.some) = known { return .regularFile }
    return try status(path)?.kind
  }

  /// The bytes and status of the regular file at a path; nil when there is none (a link, a
  /// folder or nothing).
  package func read(_ path: String) -> (bytes: [UInt8], status: FileStatus)? {
    let (folderPath, name) = Self.split(path)
    guard let folder = try? folder(folderPath, create: false, for: path) else { return nil }
    let handle = calls.openAt(folder, name, O_RDONLY | O_NOFOLLOW)
    guard handle >= 0 else { return nil }
    defer { _ = calls.close(handle) }
    guard let status = calls.statHandle(handle), status.kind == .regularFile else { return nil }
    return calls.readAll(handle, size: status.size).map { ($0, status) }
  }

  /// The SHA-256 of the PNG bytes at a path, nil when there is no regular file. Asked once per
  /// path per run; across runs the digest cache answers for files that have not changed.
  package func pngSHA256(_ path: String) -> String? {
    pngDigest(path)?.hex
  }

  /// The SHA-256 of the PNG bytes at a path, as kept for comparisons; see `pngSHA256(_:)`.
  /// Not remembered: the sources' reading asks once per entry and carries the answer, and
  /// remembering every file read cost a merge that changes every reference a table entry for
  /// each (remembering every path, a rerun one for every image).
  package func pngDigest(_ path: String) -> SHA256Digest? {
    digest(path) { _ in false }
  }

  /// Whether the file at a path holds exactly the PNG bytes of this digest.
  /// - Parameter remembering: Whether a file that holds them is remembered, for an image that
  ///   cannot carry the answer itself (`SourceInventory.Image.destinationHeldIt`): the planner
  ///   asks again, and the digest cache cannot vouch for a file as new as itself. A file that holds other
  ///   bytes never is: the planner reads it once then, for its pixels, and remembering every
  ///   such file cost a merge that changes every reference a table entry for each.
  package func holds(_ path: String, digest expected: SHA256Digest, remembering: Bool = false)
    -> Bool
  {
    digest(path) { remembering && $0 == expected } == expected
  }

  /// The digest remembered for a path this run, without asking the file system.
  package func rememberedDigest(_ path: String) -> SHA256Digest? {
    lock.lock()
    defer { lock.unlock() }
    return digests[ExactPath(path)] ?? nil
  }

  /// The digest, remembered when `keep` says so.
  private func digest(_ path: String, keep: (SHA256Digest?) -> Bool) -> SHA256Digest? {
    lock.lock()
    if let known = digests[ExactPath(path)] {
      lock.unlock()
      return known
    }
    lock.unlock()
    let digest = computePNGSHA256(path)
    if keep(digest) {
      lock.lock()
      digests[ExactPath(path)] = digest
      lock.unlock()
    }
    return digest
  }

  /// The digest: the digest cache's, when it vouches for the file, else the file's, learned.
  private func computePNGSHA256(_ path: String) -> SHA256Digest? {
    if let digestCache {
      guard let status = try? status(path), status.kind == .regularFile else {
        return pointer(path).map(\.object.digest)
      }
      if let digest = digestCache.digest(path, status: status) { return digest }
      guard let (bytes, read) = read(path) else { return nil }
      let digest = SHA256Digest(of: bytes)
      digestCache.remember(path, status: read, digest: digest)
      return digest
    }
    return read(path).map { SHA256Digest(of: $0.bytes) }
      ?? pointer(path).map(\.object.digest)
  }

  /// What a destination file holds, as far as comparing pixels goes.
  package enum PixelIdentity: Sendable, Equatable {
    /// An image of this size whose RGBA8 pixels hash to `pixelSHA256`.
    case image(width: Int, height: Int, pixelSHA256: SHA256Digest)
    /// A Git LFS pointer: the image was never fetched, so its pixels are unknown.
    case gitLFSPointer(GitLFSPointer)
    /// A file that is neither: it does not decode.
    case undecodable
  }

  /// What the file at a path holds, nil when there is none. The one place a destination file's
  /// pixels are identified: the file's own pixel digest chunk answers when its IDAT digest
  /// vouches for it, else the file is decoded; a Git LFS pointer is never taken for an image.
  package func pixelIdentity(_ path: String) -> PixelIdentity? {
    read(path).map { Self.pixelIdentity(of: $0.bytes) }
      ?? pointer(path).map {
        .image(width: $0.pixels.width, height: $0.pixels.height, pixelSHA256: $0.pixels.pixelSHA256)
      }
  }

  /// What a file's bytes hold, as far as comparing pixels goes; see `pixelIdentity(_:)`.
  static func pixelIdentity(of bytes: [UInt8]) -> PixelIdentity {
    if let pointer = GitLFSPointer(bytes) { return .gitLFSPointer(pointer) }
    if let digest = PNGPixelDigest.read(fromPNG: bytes) {
      return .image(width: digest.width, height: digest.height, pixelSHA256: digest.pixelSHA256)
    }
    // Decoded only to be hashed: its memory serves the next file's decode.
    let recycler = PNGDecoder.Recycler.shared
    guard let image = try? recycler.decode(bytes) else { return .undecodable }
    let identity = PixelIdentity.image(
      width: image.width, height: image.height, pixelSHA256: SHA256Digest(of: image.pixels))
    recycler.recycle(image)
    return identity
  }

  /// Whether the file at a path is a Git LFS pointer rather than an image.
  package func isGitLFSPointer(_ path: String) -> Bool {
    guard let bytes = read(path)?.bytes else { return false }
    return GitLFSPointer.isPointer(bytes)
  }

  /// The decoded image at a path, for reports; nil when there is none or it does not decode.
  package func image(_ path: String) -> RGBAImage? {
    guard let bytes = referenceBytes(path) else { return nil }
    return try? PNGDecoder().decode(bytes)
  }

  /// The references directly in a folder (orphan candidates), sorted: its regular `.png`
  /// files and, for a package with a store, the references its pointer files name.
  package func pngFiles(in folderPath: String) -> [String] {
    guard let folder = try? folder(folderPath, create: false, for: folderPath),
      let entries = calls.list(folder)
    else { return [] }
    let pointers = storedReferences != nil
    let names = entries.compactMap { entry -> String? in
      let lowercased = entry.name.lowercased()
      let reference =
        lowercased.hasSuffix(".png")
        ? entry.name
        : pointers ? ReferencePointer.referencePath(of: entry.name) : nil
      guard let reference else { return nil }
      let kind = entry.kind ?? calls.statAt(folder, entry.name)?.kind
      return kind == .regularFile ? reference : nil
    }
    // A PNG beside its pointer is one reference (which `checkWritable` refuses).
    return Array(Set(names)).sorted()
  }

  /// The folders directly in a folder (never through a link), sorted; none when it is missing.
  package func subfolders(in folderPath: String) -> [String] {
    guard let folder = try? folder(folderPath, create: false, for: folderPath),
      let entries = calls.list(folder)
    else { return [] }
    return entries.filter { entry in
      !entry.name.hasPrefix(".")
        && (entry.kind ?? calls.statAt(folder, entry.name)?.kind) == .folder
    }.map(\.name).sorted()
  }

  /// Saves what was learned about the destination's files for the next run.
  package func saveDigests() {
    digestCache?.save()
  }

  /// Lets go of the digests asked this run, once the plan is decided: a merge of many archives
  /// asks one per path, and nothing after planning needs them (a later question hashes again).
  package func forgetDigests() {
    lock.lock()
    digests = [:]
    lock.unlock()
  }

  // MARK: Helpers

  /// A package-relative path as (folder, name), split at its last "/" byte, as the kernel
  /// splits it. Not by `Character`: "/" and a combining accent after it are one, so
  /// `Tests/Link/\u{301}a.png` was split in `Tests`, and the name given to `renameat` went
  /// through the link `Link`.
  static func split(_ path: String) -> (folder: String, name: String) {
    let bytes = path.utf8
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return ("", path) }
    return (
      String(decoding: bytes[..<slash], as: UTF8.self),
      String(decoding: bytes[bytes.index(after: slash)...], as: UTF8.self)
    )
  }

  func fullPath(_ relative: String) -> String {
    relative.isEmpty ? root.path : root.path + "/" + relative
  }

  private func refused(_ path: String, at relative: String) -> MergeError {
    .refusedEntry(
      source: root.path, entry: path,
      reason: "\(fullPath(relative)) is a symbolic link; merge-refs does not write through links")
  }

  static func reason(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

  /// A failed write or delete of a package-relative path, naming what must be writable: the
  /// folder (by default the file's own), and the file when it is being replaced or deleted.
  func notWritten(
    _ path: String, _ action: WriteFailure.Action, _ step: String, in folder: String? = nil,
    _ code: Int32 = errno, replacing: Bool = false
  ) -> MergeError {
    .notWritten(
      WriteFailure(
        root: root.path, path: path, action: action, step: step,
        mustBeWritable: [folder ?? Self.split(path).folder] + (replacing ? [path] : []),
        code: code))
  }
}
