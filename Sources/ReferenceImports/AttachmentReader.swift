import Foundation

/// Reads the bytes of one container's attachments, checked before use: a value per kind of
/// container, made where that kind is read (`.resultBundle`, `.attachmentExport`,
/// `.snapshotTree`, `.swiftTestingAttachments`), so that sorting and merging read every kind
/// the same way.
public struct AttachmentReader: Sendable {
  /// The bundle or folder the attachments are in.
  public let container: URL
  private let read: @Sendable (ImportedAttachment) throws(ImportError) -> [UInt8]
  private let readPrefix: (@Sendable (ImportedAttachment, Int) throws(ImportError) -> [UInt8])?

  /// A reader of a container.
  /// - Parameters:
  ///   - container: The bundle or folder, for messages.
  ///   - payload: Reads an attachment's bytes, checked.
  ///   - prefix: Reads an attachment's first bytes, checked as `payload` checks them, where
  ///     that costs less than the whole payload; the whole payload's prefix otherwise.
  public init(
    container: URL,
    payload: @escaping @Sendable (ImportedAttachment) throws(ImportError) -> [UInt8],
    prefix: (@Sendable (ImportedAttachment, Int) throws(ImportError) -> [UInt8])? = nil
  ) {
    self.container = container
    read = payload
    readPrefix = prefix
  }

  /// The bytes of an attachment, checked (bundle payloads against their content id).
  /// - Throws: `ImportError` naming the container and the attachment.
  public func payload(_ attachment: ImportedAttachment) throws(ImportError) -> [UInt8] {
    try read(attachment)
  }

  /// The first `count` bytes of an attachment, checked as `payload` checks them, to tell what
  /// it holds.
  /// - Throws: `ImportError` naming the container and the attachment.
  public func payloadPrefix(_ attachment: ImportedAttachment, count: Int) throws(ImportError)
    -> [UInt8]
  {
    if let readPrefix { return try readPrefix(attachment, count) }
    return Array(try read(attachment).prefix(count))
  }

  /// The refusal of an attachment whose payload another kind of container holds.
  static func foreign(_ attachment: ImportedAttachment, in container: URL) -> ImportError {
    ImportError(
      container: container.path, object: attachment.name,
      reason: "its payload is not of this container's kind")
  }
}
