import Foundation
import ReferenceContracts
import ReferenceImageCore

/// Orphans: references in the folders the runs used that no run produced or verified, and the
/// folders no run uses any more.
extension MergePlanner {
  /// What an orphan search found.
  struct FoundOrphans {
    /// The orphans, sorted by path.
    var orphans: [MergePlan.Item] = []
    /// References skipped tests may own, left alone, sorted.
    var kept: [String] = []
    /// Folders under a `__References__` folder the runs used that no run used at all.
    var abandoned: [String] = []
  }

  /// PNGs in the reference folders the runs used that no run produced or verified: the folders
  /// of the paths the runs used, and every folder under a `__References__` folder among them
  /// (so a renamed test file's old folder is found). With variants, a file counts as used when
  /// any file of its reference (base or variant) was, and the files of variants no render of
  /// this merge ran as are left alone: a merge of one platform's runs proves nothing about
  /// another platform's files. References that skipped tests may own are kept, not orphans.
  /// - Parameters:
  ///   - produced: The plan's items for the images of the runs, sorted by path: searched
  ///     instead of a set of every path, which a merge of many archives would pay for twice.
  ///   - variants: The declaration, with the variant renders that needed no file.
  ///   - scope: What skipped tests may own.
  func orphans(
    _ inventories: [SourceInventory], produced: MergePlan.ItemList, destination: Destination,
    variants: (declaration: ReferenceVariants, notNeeded: [String])? = nil,
    scope: SkippedTestScope = SkippedTestScope(
      skipped: [], files: [:], suiteFiles: [:], uses: [])
  ) -> FoundOrphans {
    // Paths and folders are compared byte for byte (`ExactPath`): the file system keeps a
    // folder named with a composed `é` apart from one with `e` and a combining accent, and so
    // must the search, or the second one's files are taken for the first one's.
    var verified = Set<ExactPath>()
    for inventory in inventories {
      verified.formUnion((inventory.manifest?.verifiedReferences ?? []).map(ExactPath.init))
    }
    var used = Set<ExactPath>()
    // Items come in path order, a folder's together: each folder is hashed once, not once an
    // item (500,000 times in a fleet's rerun).
    var lastFolder: ExactPath?
    for item in produced {
      let folder = ExactPath(Destination.split(item.path).folder)
      if folder != lastFolder { used.insert(folder) }
      lastFolder = folder
    }
    for path in verified { used.insert(ExactPath(Destination.split(path.path).folder)) }
    let isUsed: (String) -> Bool
    if let variants {
      isUsed = Self.variantUse(
        produced.map(\.path) + variants.notNeeded, verified: verified,
        declaration: variants.declaration)
    } else {
      // Folders are searched in path order and their names listed sorted, so the item a name
      // is used by is usually the one after the last found: one comparison where a search
      // took 19 at 500,000 items.
      var next = 0
      isUsed = { path in
        guard !verified.contains(ExactPath(path)) else { return true }
        let sought = SoughtPath(path)
        if next < produced.count, produced[next].pathOrder(to: sought) == 0 {
          next += 1
          return true
        }
        guard let index = Self.index(of: sought, in: produced) else { return false }
        next = index + 1
        return true
      }
    }
    var found = FoundOrphans()
    let searched = used.union(Self.foldersUnderReferenceRoots(of: used, in: destination))
    for folder in searched.map(\.path).sorted(by: ExactPath.precedes) {
      var orphansHere = 0
      for name in destination.pngFiles(in: folder) {
        let path = folder.isEmpty ? name : "\(folder)/\(name)"
        guard !isUsed(path) else { continue }
        guard !scope.protects(path) else {
          found.kept.append(path)
          continue
        }
        orphansHere += 1
        found.orphans.append(
          .init(
            path: path, outcome: .orphan, chosen: nil, rivals: [], conflictingPixels: nil,
            resolvedByNewest: false))
      }
      if orphansHere > 0, !used.contains(ExactPath(folder)) { found.abandoned.append(folder) }
    }
    return found
  }

  /// Every folder below the `__References__` folders that `folders` are in (the default
  /// layout's roots), found by walking them; folders outside that layout are not walked.
  private static func foldersUnderReferenceRoots(
    of folders: Set<ExactPath>, in destination: Destination
  ) -> Set<ExactPath> {
    var roots = Set<ExactPath>()
    for folder in folders {
      // Split by bytes, as `Destination.split` is.
      let components = folder.path.utf8.split(separator: UInt8(ascii: "/")).map {
        String(decoding: $0, as: UTF8.self)
      }
      guard let marker = components.lastIndex(of: "__References__") else { continue }
      roots.insert(ExactPath(components[...marker].joined(separator: "/")))
    }
    var found = Set<ExactPath>()
    var pending = roots.map(\.path)
    while let folder = pending.popLast() {
      for name in destination.subfolders(in: folder) {
        let path = "\(folder)/\(name)"
        if found.insert(ExactPath(path)).inserted { pending.append(path) }
      }
    }
    return found
  }

  /// The item at a path, by binary search of items sorted by path.
  static func item(at path: String, in items: MergePlan.ItemList) -> MergePlan.Item? {
    position(of: path, in: items).map { items[$0] }
  }

  /// The position of the item at a path, by binary search of items sorted by path.
  static func position(of path: String, in items: MergePlan.ItemList) -> Int? {
    index(of: SoughtPath(path), in: items)
  }

  /// The index of the item at a path, by binary search of items sorted by path.
  private static func index(of sought: SoughtPath, in items: MergePlan.ItemList) -> Int? {
    let index = items.lowerBound { $0.pathOrder(to: sought) < 0 }
    return index < items.count && items[index].pathOrder(to: sought) == 0 ? index : nil
  }

  /// The use rule with variants: a path is used when its reference's base path is, or when it
  /// is the file of a variant no render ran as.
  private static func variantUse(
    _ rendered: [String], verified: Set<ExactPath>, declaration: ReferenceVariants
  ) -> (String) -> Bool {
    let split = { (path: String) in VariantPath.split(path, declared: declaration) }
    var usedBases = Set<ExactPath>()
    var renderedVariants = Set<String>()
    for path in rendered + verified.map(\.path) {
      let variant = split(path)
      usedBases.insert(ExactPath(variant?.basePath ?? path))
      if let name = variant?.variant { renderedVariants.insert(name) }
    }
    return { path in
      guard let variant = split(path) else { return usedBases.contains(ExactPath(path)) }
      return !renderedVariants.contains(variant.variant)
        || usedBases.contains(ExactPath(variant.basePath))
    }
  }
}

extension MergePlanner {
  /// The abandoned folders with their orphan counts, and for each the folder this merge adds
  /// all of its orphans' pixels to, when there is one: a renamed test file or suite, whose
  /// history `git mv` keeps. Only abandoned folders' orphans are identified, so a usual merge
  /// reads nothing more.
  /// - Parameter produced: The plan's items; only the added ones are read, in place (a
  ///   filtered copy cost a first merge of many archives a second plan).
  func abandonedFolders(
    _ folders: [String], orphans: [MergePlan.Item], produced: MergePlan.ItemList,
    destination: Destination
  ) -> [MergePlan.AbandonedFolder] {
    guard !folders.isEmpty else { return [] }
    // Folders byte for byte, as the orphan search keeps them (`ExactPath`).
    var addedFolders: [SHA256Digest: Set<ExactPath>] = [:]
    for item in produced where item.outcome == .added {
      guard let pixels = item.after else { continue }
      addedFolders[pixels, default: []].insert(ExactPath(Destination.split(item.path).folder))
    }
    let byFolder = Dictionary(grouping: orphans) { ExactPath(Destination.split($0.path).folder) }
    return folders.map { folder in
      let paths = (byFolder[ExactPath(folder)] ?? []).map(\.path)
      let movedTo = commonFolder(of: paths, in: addedFolders, destination: destination)
      return .init(
        path: folder, orphans: paths.count, movedTo: movedTo,
        movable: movedTo.map { !Self.folderExists($0, in: destination) } ?? false)
    }
  }

  private static func folderExists(_ path: String, in destination: Destination) -> Bool {
    let (parent, name) = Destination.split(path)
    return destination.subfolders(in: parent).contains { $0.utf8.elementsEqual(name.utf8) }
  }

  /// The one folder that added the pixels of every path, or nil.
  private func commonFolder(
    of paths: [String], in addedFolders: [SHA256Digest: Set<ExactPath>], destination: Destination
  ) -> String? {
    guard !addedFolders.isEmpty else { return nil }
    var common: Set<ExactPath>?
    for path in paths {
      guard case .image(_, _, let pixels)? = destination.pixelIdentity(path),
        let folders = addedFolders[pixels]
      else { return nil }
      common = common.map { $0.intersection(folders) } ?? folders
      if common?.isEmpty == true { return nil }
    }
    return common?.count == 1 ? common?.first?.path : nil
  }
}
