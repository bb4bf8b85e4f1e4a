import Foundation

/// A folder `xcrun xcresulttool export attachments --path Run.xcresult --output-path DIR`
/// wrote: `manifest.json` (tests, each with its attachments) and the exported files.
public struct AttachmentExport: Sendable {
  /// The folder.
  public let url: URL
  let limits: ImportLimits

  /// The manifest's name.
  public static let manifestName = "manifest.json"

  private struct Test: Decodable {
    var testIdentifier: String
    var attachments: [Attachment]
  }

  private struct Attachment: Decodable {
    var exportedFileName: String
    var suggestedHumanReadableName: String?
    var configurationName: String?
    var deviceName: String?
    var arguments: [String]?
  }

  /// Opens an export folder.
  public init(url: URL, limits: ImportLimits = .default) {
    self.url = url
    self.limits = limits
  }

  /// Whether a folder looks like an export: a `manifest.json` whose tests list exported files.
  public static func recognizes(_ url: URL) -> Bool {
    let path = url.appendingPathComponent(manifestName).path
    guard FileStatus.of(path) == .regularFile,
      let bytes = try? FileStatus.read(path, limit: 64 << 20)
    else { return false }
    return (try? JSONDecoder().decode([Test].self, from: Data(bytes))) != nil
  }

  /// Every attachment the manifest lists, with its provenance.
  public func attachments() throws(ImportError) -> [ImportedAttachment] {
    let tests: [Test]
    do {
      let bytes = try FileStatus.read(
        url.appendingPathComponent(Self.manifestName).path, limit: 64 << 20)
      tests = try JSONDecoder().decode([Test].self, from: Data(bytes))
    } catch {
      throw ImportError(
        container: url.path, object: Self.manifestName,
        reason: "not an xcresulttool attachment manifest: \(error)")
    }
    var found: [ImportedAttachment] = []
    for test in tests {
      for attachment in test.attachments {
        found.append(try imported(attachment, of: test.testIdentifier))
        guard found.count <= limits.maximumAttachments else {
          throw ImportError(
            container: url.path, object: Self.manifestName,
            reason: "more than \(limits.maximumAttachments) attachments")
        }
      }
    }
    return found
  }

  private func imported(_ attachment: Attachment, of test: String) throws(ImportError)
    -> ImportedAttachment
  {
    let file = attachment.exportedFileName
    let name = ImportedAttachment.stableName(
      fileName: attachment.suggestedHumanReadableName ?? file)
    for (what, text) in [("exported file", file), ("attachment", name)] {
      if let reason = AttachmentName.problem(text) {
        throw ImportError(
          container: url.path, object: "\(what) '\(EntryPathText.escaped(text))' of \(test)",
          reason: reason)
      }
    }
    let provenance = AttachmentProvenance(
      test: test, configuration: attachment.configurationName, device: attachment.deviceName,
      arguments: attachment.arguments ?? [])
    return ImportedAttachment(
      name: name, typeIdentifier: nil, payload: .file(name: file), provenance: provenance)
  }

  /// The bytes of an exported file, read without following links.
  public func payload(_ name: String) throws(ImportError) -> [UInt8] {
    try FlatFolder(url: url, limits: limits, listedBy: Self.manifestName).read(name)
  }

  /// Its sources: each attached archive of this package, then its PNG attachments by render
  /// context, placed by the `__Snapshots__` folders of `destination`; what lands nowhere is
  /// listed with why by the first image source (an empty one when none lands).
  public func sources(destination: URL) throws(ImportError) -> [ImportedSource] {
    try ImportedSources.sources(
      of: try attachments(), reader: .attachmentExport(url, limits: limits),
      placedIn: destination)
  }
}

extension AttachmentReader {
  /// An export's files, by the names its manifest lists.
  public static func attachmentExport(_ url: URL, limits: ImportLimits) -> AttachmentReader {
    AttachmentReader(container: url) { attachment throws(ImportError) in
      guard case .file(let name) = attachment.payload else {
        throw AttachmentReader.foreign(attachment, in: url)
      }
      return try AttachmentExport(url: url, limits: limits).payload(name)
    }
  }
}
