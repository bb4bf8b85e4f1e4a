import Foundation
import ReferenceContracts

/// A folder `swift test --attachments-path DIR --event-stream-output-path DIR/events.jsonl`
/// wrote: Swift Testing's attachments, flat, and the event stream whose `valueAttached` records
/// name each file's test (`testID`, and in stream version 0 the case's `_testCase`).
///
/// The file names alone say no test, so a folder without its stream is refused by name, with
/// the command that writes one.
public struct SwiftTestingAttachments: Sendable {
  /// The folder.
  public let url: URL
  /// The event streams found in it, by file name.
  public let streams: [String]
  let limits: ImportLimits

  /// The largest event stream read.
  public static let maximumStreamBytes = 256 << 20

  /// What a folder is to this reader.
  public enum Recognition: Sendable, Equatable {
    /// Attachments with their event streams (file names).
    case attachments(streams: [String])
    /// Failure images this package attached (the file named), with no event stream beside.
    case missingStream(example: String)
    /// Neither.
    case unrelated
  }

  /// Opens a folder whose streams `recognize(_:)` found.
  public init(url: URL, streams: [String], limits: ImportLimits = .default) {
    self.url = url
    self.streams = streams
    self.limits = limits
  }

  /// Whether a folder holds Swift Testing attachments: a top-level file that is an event
  /// stream (its first line a Swift Testing record), or else failure images of this package
  /// (`*.actual.png`) with no manifest beside them.
  public static func recognize(_ url: URL) -> Recognition {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else {
      return .unrelated
    }
    let files = names.sorted().filter {
      FileStatus.of(url.appendingPathComponent($0).path) == .regularFile
    }
    // Images and zips are never streams: an output folder of many archives opens none.
    let streams = files.filter {
      let lowercased = $0.lowercased()
      return !lowercased.hasSuffix(".png") && !lowercased.hasSuffix(".zip")
        && isEventStream(url.appendingPathComponent($0))
    }
    if !streams.isEmpty { return .attachments(streams: streams) }
    if files.contains(ArchiveManifest.entryName) { return .unrelated }
    let failureImage = files.first { FailureAttachmentName(fileName: $0) != nil }
    return failureImage.map { .missingStream(example: $0) } ?? .unrelated
  }

  /// Why a folder of failure images without a stream is refused, with the fix.
  public static func missingStreamReason(folder: URL) -> String {
    let folder = ShellWord.quoted(folder.path)
    return "Swift Testing attachments without their event stream, which names each file's "
      + "test: write it into the folder, "
      + "`swift test --attachments-path \(folder) --event-stream-output-path "
      + "\(folder)/events.jsonl`, or copy the stream that run wrote into it"
  }

  /// Whether a file's first line is a Swift Testing event stream record.
  static func isEventStream(_ url: URL) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
    defer { try? handle.close() }
    guard let head = try? handle.read(upToCount: 64 << 10),
      let line = head.split(separator: 0x0A, maxSplits: 1).first,
      let record = try? JSONDecoder().decode(Record.self, from: line)
    else { return false }
    return record.kind == "test" || record.kind == "event"
  }

  /// Every attachment the streams name, with its test; files no record names are listed in
  /// `unnamed`.
  public func attachments() throws(ImportError) -> (
    attachments: [ImportedAttachment], unnamed: [String]
  ) {
    var named: [String: ImportedAttachment] = [:]
    for stream in streams {
      for (file, attachment) in try attachments(in: stream) where named[file] == nil {
        named[file] = attachment
        guard named.count <= limits.maximumAttachments else {
          throw ImportError(
            container: url.path, object: stream,
            reason: "more than \(limits.maximumAttachments) attachments")
        }
      }
    }
    let files = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
    let unnamed = files.filter { named[$0] == nil && !streams.contains($0) }.sorted()
    return (named.sorted { $0.key < $1.key }.map(\.value), unnamed)
  }

  /// The attachments one stream names, by file name. A record naming a file that is not in
  /// the folder is refused: the folder is not the one the run wrote, or lost files.
  private func attachments(in stream: String) throws(ImportError) -> [(String, ImportedAttachment)]
  {
    let bytes: [UInt8]
    do {
      bytes = try FileStatus.read(
        url.appendingPathComponent(stream).path, limit: Self.maximumStreamBytes)
    } catch {
      throw ImportError(container: url.path, object: stream, reason: "cannot be read: \(error)")
    }
    var found: [(String, ImportedAttachment)] = []
    let decoder = JSONDecoder()
    for (index, line) in bytes.split(separator: 0x0A).enumerated() {
      // A line this reader does not understand (another record kind) is no attachment.
      guard let record = try? decoder.decode(Record.self, from: Data(line)),
        record.kind == "event", let payload = record.payload, payload.kind == "valueAttached",
        let path = payload.attachment?.path
      else { continue }
      let file = (path as NSString).lastPathComponent
      let object = "\(stream) line \(index + 1) ('\(EntryPathText.escaped(file))')"
      if let problem = AttachmentName.problem(file) {
        throw ImportError(container: url.path, object: object, reason: problem)
      }
      guard FileStatus.of(url.appendingPathComponent(file).path) != .missing else {
        throw ImportError(
          container: url.path, object: object,
          reason: "the stream names a file the folder does not hold: pass the folder the run "
            + "wrote (--attachments-path) with its stream")
      }
      let test = payload.testID.map(TestName.listing(swiftTestingID:)) ?? "(no test)"
      let arguments = payload.testCase?.displayName.map { [$0] } ?? []
      found.append(
        (
          file,
          ImportedAttachment(
            name: payload.attachment?.preferredName ?? file, typeIdentifier: nil,
            payload: .file(name: file),
            provenance: AttachmentProvenance(test: test, arguments: arguments)
          )
        ))
    }
    return found
  }

  /// The bytes of an attachment, read without following links.
  public func payload(_ name: String) throws(ImportError) -> [UInt8] {
    try FlatFolder(url: url, limits: limits, listedBy: "the event stream").read(name)
  }

  /// The renders of failed comparisons, a source per test (a conflict names the test), each
  /// with the references it was compared with; the folder's other files are listed with why
  /// they do not land.
  public func sources() throws(ImportError) -> [ImportedSource] {
    let listed = try attachments()
    var sorting = ImportedSources.Sorting(
      reader: .swiftTestingAttachments(url, streams: streams, limits: limits))
    sorting.context = \.description
    sorting.notLanded += listed.unnamed.map {
      "\(EntryPathText.escaped($0)): no valueAttached record of the event stream names it, "
        + "so its test is unknown"
    }
    // A render lands only over the reference it was compared with, as an archive's does:
    // the folder holds that reference beside it, or none when there was none.
    let references = FailureImagePlacement.references(among: listed.attachments)
    sorting.comparedWith = { attachment in
      FailureImagePlacement.comparisonKey(attachment).map { references[$0] ?? [] }
    }
    for attachment in listed.attachments {
      try sorting.take(attachment, place: FailureImagePlacement.place)
    }
    return sorting.sources()
  }

  private struct Record: Decodable {
    var kind: String
    var payload: Payload?
  }

  private struct Payload: Decodable {
    var kind: String?
    var testID: String?
    var attachment: Attachment?
    var testCase: TestCase?

    enum CodingKeys: String, CodingKey {
      case kind, testID, attachment
      case testCase = "_testCase"
    }
  }

  private struct Attachment: Decodable {
    var path: String?
    var preferredName: String?

    enum CodingKeys: String, CodingKey {
      case path
      case preferredName = "_preferredName"
    }
  }

  private struct TestCase: Decodable {
    var displayName: String?
  }
}

extension AttachmentReader {
  /// A Swift Testing folder's files, by the names its event streams give them.
  public static func swiftTestingAttachments(_ url: URL, streams: [String], limits: ImportLimits)
    -> AttachmentReader
  {
    AttachmentReader(container: url) { attachment throws(ImportError) in
      guard case .file(let name) = attachment.payload else {
        throw AttachmentReader.foreign(attachment, in: url)
      }
      return try SwiftTestingAttachments(url: url, streams: streams, limits: limits).payload(name)
    }
  }
}
