import ReferenceArchive
import ReferenceContracts

/// Where a Swift Testing attachment lands: the actual render of a failed comparison, at the
/// reference path its name carries (`FailureAttachmentName`). The reference and difference
/// images of that comparison show the failure and are counted, never landed; any other PNG
/// is listed with why.
enum FailureImagePlacement {
  static func place(_ attachment: ImportedAttachment) -> Result<String, SnapshotPlacement.Unplaced>
  {
    guard let name = FailureAttachmentName(fileName: attachment.name) else {
      return .failure(
        .init(
          "not a failure image of ReferenceImages (those are named <reference path>.actual.png)"
        ))
    }
    guard name.role == .actual else {
      return .failure(.init(counted: "\(name.role.rawValue) images of failed comparisons"))
    }
    guard let path = name.referencePath else {
      return .failure(
        .init(
          "its name carries no reference path (the path is too long for one file name): land "
            + "the run's archive instead"))
    }
    if let problem = EntryPath.validate(path) {
      return .failure(
        .init("its reference path '\(EntryPath.escaped(path))' is refused: \(problem)"))
    }
    return .success(path)
  }

  /// What pairs a failed comparison's images: its test and context, and the name without its
  /// role and without the `-<random>` Swift Testing inserts into a repeated name (before the
  /// first dot, so after the encoded path and the case, which hold no unencoded `-` outside
  /// the case's brackets). nil for names that are no failure image.
  static func comparisonKey(_ attachment: ImportedAttachment) -> String? {
    guard let name = FailureAttachmentName(fileName: attachment.name) else { return nil }
    var stem = Substring(name.stem)
    if let dash = stem.lastIndex(of: "-"), !stem[dash...].contains("]") {
      stem = stem[..<dash]
    }
    return attachment.provenance.description + "\n" + stem
  }

  /// The references each failed comparison's render was compared with, by `comparisonKey`.
  static func references(among attachments: [ImportedAttachment]) -> [String: [ImportedAttachment]]
  {
    var found: [String: [ImportedAttachment]] = [:]
    for attachment in attachments
    where FailureAttachmentName(fileName: attachment.name)?.role == .reference {
      if let key = comparisonKey(attachment) { found[key, default: []].append(attachment) }
    }
    return found
  }
}
