import Foundation
import ReferenceArchive

/// Moving a tree's references into a store and back, and filling the local cache: the logic
/// behind `reference-store migrate`, `restore` and `fetch`. Every file is decided on its own
/// and reported as a value; what fails is named and left as it was.
///
/// Migrating a PNG uploads it, checks the store holds it, writes its pointer, and only then
/// removes the PNG. Restoring writes the PNG from the object (checked against its key, so the
/// file is byte-identical to the one migrated) and only then removes the pointer. Interrupted
/// at any point, either step leaves every reference whole: as a PNG, as a pointer to a stored
/// object, or (for an instant) both, which the next run finishes.
public enum StoreMigration {
  /// What happened to one file.
  public struct Item: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
      /// Migrated: the PNG is in the store and its pointer in the tree (`uploaded` is false
      /// when the store held the object already).
      case moved(uploaded: Bool)
      /// Restored: the PNG is back and its pointer gone.
      case restored
      /// Fetched into the cache (from the store), or found there already.
      case fetched(fromStore: Bool)
      /// Already done by an earlier, interrupted run: the other form is removed.
      case finished
      /// Would be done (a dry run).
      case planned
      /// Not done, for the reason given; the file is as it was.
      case failed(String)
    }

    /// The file: the PNG for `migrate`, the pointer for `restore` and `fetch`.
    public var file: URL
    public var outcome: Outcome
  }

  /// The pointer files named by `paths`: each file as given, and every `.png.ref` file below
  /// each folder (hidden folders skipped), sorted.
  /// - Throws: `ArchiveError.io` naming a path that does not exist.
  public static func pointerFiles(in paths: [URL]) throws(ArchiveError) -> [URL] {
    try FileSystem.files(in: paths) { ReferencePointer.referencePath(of: $0.path) != nil }
  }

  /// Moves PNG references into the store, each replaced by its pointer.
  /// - Parameters:
  ///   - files: The PNG files (`FileSystem.pngFiles(in:)`).
  ///   - store: The package's store.
  ///   - dryRun: Whether to decide only, writing and uploading nothing.
  ///   - progress: Called with (done, total) as files finish.
  public static func migrate(
    _ files: [URL], to store: any ObjectStore, dryRun: Bool,
    progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
  ) -> [Item] {
    inParallel(files, progress: progress) { file in
      Item(file: file, outcome: migrate(file, to: store, dryRun: dryRun))
    }
  }

  private static func migrate(_ file: URL, to store: any ObjectStore, dryRun: Bool)
    -> Item.Outcome
  {
    let pointerFile = URL(fileURLWithPath: file.path + ReferencePointer.pathExtension)
    do {
      let png = try FileSystem.read(file)
      let pointer = try ReferencePointer.make(png: png)
      if let existing = try? FileSystem.readIfPresent(pointerFile) {
        // An interrupted run wrote the pointer: finish it only when it names this PNG.
        guard existing == pointer.bytes, try store.has(pointer.object) else {
          return .failed(
            "\(pointerFile.lastPathComponent) exists and names another image; keep one of the "
              + "two (`git rm` the other)")
        }
        if !dryRun { try removeFile(file) }
        return dryRun ? .planned : .finished
      }
      if dryRun { return .planned }
      let uploaded = try StoredObject.upload(png, to: store)
      try FileSystem.writeAtomically(pointer.bytes, to: pointerFile)
      try removeFile(file)
      return .moved(uploaded: uploaded)
    } catch {
      return .failed("\(error)")
    }
  }

  /// Brings stored references back as PNG files, each replacing its pointer.
  /// - Parameters:
  ///   - pointers: The pointer files (`pointerFiles(in:)`).
  ///   - objects: The cache and the store.
  ///   - dryRun: Whether to decide only, writing nothing.
  public static func restore(
    _ pointers: [URL], from objects: ObjectCache, dryRun: Bool,
    progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
  ) -> [Item] {
    inParallel(pointers, progress: progress) { file in
      Item(file: file, outcome: restore(file, from: objects, dryRun: dryRun))
    }
  }

  private static func restore(_ pointerFile: URL, from objects: ObjectCache, dryRun: Bool)
    -> Item.Outcome
  {
    guard let pngPath = ReferencePointer.referencePath(of: pointerFile.path) else {
      return .failed("not a pointer's name")
    }
    let pngFile = URL(fileURLWithPath: pngPath)
    do {
      let pointer = try ReferencePointer(
        parsing: try FileSystem.read(pointerFile), path: pointerFile.path)
      if let existing = try FileSystem.readIfPresent(pngFile) {
        // An interrupted run wrote the PNG: finish it only when it is the pointer's object.
        guard ObjectKey(of: existing) == pointer.object else {
          return .failed(
            "\(pngFile.lastPathComponent) exists and is not the image the pointer names; keep "
              + "one of the two (`git rm` the other)")
        }
        if !dryRun { try removeFile(pointerFile) }
        return dryRun ? .planned : .finished
      }
      let png = try objects.png(for: pointer, at: pointerFile.path)
      if dryRun { return .planned }
      try FileSystem.writeAtomically(png, to: pngFile)
      try removeFile(pointerFile)
      return .restored
    } catch {
      return .failed("\(error)")
    }
  }

  /// Fills the local cache with the objects the pointers name.
  public static func fetch(
    _ pointers: [URL], into objects: ObjectCache,
    progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
  ) -> [Item] {
    inParallel(pointers, progress: progress) { file in
      do {
        let pointer = try ReferencePointer(parsing: try FileSystem.read(file), path: file.path)
        let origin = try objects.object(pointer.object).origin
        return Item(file: file, outcome: .fetched(fromStore: origin == .store))
      } catch {
        return Item(file: file, outcome: .failed("\(error)"))
      }
    }
  }

  /// The objects of a store that none of `named` is: what housekeeping may delete.
  public static func unused(in store: any ObjectStore, named: Set<ObjectKey>) throws(StoreError)
    -> [ObjectKey]
  {
    try store.list().filter { !named.contains($0) }
  }

  /// Removes a file; one already gone is not an error.
  static func removeFile(_ file: URL) throws(StoreError) {
    guard unlink(file.path) == 0 || errno == ENOENT else {
      throw .io(operation: "remove", path: file.path, message: String(cString: strerror(errno)))
    }
  }

  /// How many files are worked on at once: stores answer over the network, where waiting,
  /// not the processor, bounds the speed.
  public static let parallelism = 8

  /// `work` on every element, `parallelism` at a time, results in the elements' order.
  static func inParallel<Element: Sendable, Result: Sendable>(
    _ elements: [Element], progress: @escaping @Sendable (Int, Int) -> Void,
    _ work: @escaping @Sendable (Element) -> Result
  ) -> [Result] {
    let results = ResultSlots<Result>(count: elements.count)
    DispatchQueue.concurrentPerform(iterations: min(parallelism, max(elements.count, 1))) { _ in
      while let index = results.claim() {
        progress(results.set(index, work(elements[index])), elements.count)
      }
    }
    return results.values
  }
}

/// Results filled by several threads, each slot once.
private final class ResultSlots<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [Value?]
  private var next = 0
  private var finished = 0

  init(count: Int) {
    slots = Array(repeating: nil, count: count)
  }

  /// The next index nobody has claimed, or nil when all are.
  func claim() -> Int? {
    lock.lock()
    defer { lock.unlock() }
    guard next < slots.count else { return nil }
    next += 1
    return next - 1
  }

  /// Fills a slot. - Returns: How many are filled now.
  func set(_ index: Int, _ value: Value) -> Int {
    lock.lock()
    defer { lock.unlock() }
    slots[index] = value
    finished += 1
    return finished
  }

  var values: [Value] { slots.map { $0! } }
}
