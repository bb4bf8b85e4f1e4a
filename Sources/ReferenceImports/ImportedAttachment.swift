import ReferenceArchive

/// Where an attachment was made: its test, and what makes one run of that test distinct from
/// another (test-plan configuration, arguments, repetition, device).
public struct AttachmentProvenance: Sendable, Hashable {
  /// The test, as Xcode names it (`Class/testName()`).
  public var test: String
  /// The test plan's configuration.
  public var configuration: String?
  /// The run destination's name.
  public var device: String?
  /// The test's arguments (UI test variants, parameterized cases), as described.
  public var arguments: [String]
  /// The repetition (Swift Testing and test-plan repetitions), counted from 1.
  public var repetition: Int?

  /// Creates a provenance.
  public init(
    test: String, configuration: String? = nil, device: String? = nil, arguments: [String] = [],
    repetition: Int? = nil
  ) {
    self.test = test
    self.configuration = configuration
    self.device = device
    self.arguments = arguments
    self.repetition = repetition
  }

  /// Everything but the test: attachments of one render context can share a source.
  public var context: String {
    var parts: [String] = []
    if let configuration { parts.append("configuration \(configuration)") }
    if let device { parts.append("device \(device)") }
    if !arguments.isEmpty { parts.append("arguments \(arguments.joined(separator: " "))") }
    if let repetition { parts.append("repetition \(repetition)") }
    return parts.joined(separator: ", ")
  }

  /// The test and its context, for messages.
  public var description: String {
    context.isEmpty ? test : "\(test) [\(context)]"
  }
}

/// One attachment of a result bundle or an attachment export.
public struct ImportedAttachment: Sendable, Hashable {
  /// Where its bytes are.
  public enum Payload: Sendable, Hashable {
    /// `Data/data.<id>` of a result bundle.
    case object(id: String)
    /// A file of an export folder.
    case file(name: String)
    /// A file of a `__Snapshots__` tree, by its path relative to the tree.
    case treeFile(path: String)
  }

  /// The name both Xcode and `xcresulttool` agree on: the file name without the `_<n>_<UUID>`
  /// that makes it unique (`SnapshotTest_testExample.1.png`, `Launch Screen.png`).
  public var name: String
  /// The uniform type identifier (`public.png`), when recorded.
  public var typeIdentifier: String?
  /// Where its bytes are.
  public var payload: Payload
  /// Its test and render context.
  public var provenance: AttachmentProvenance
  /// The title of the activity it was attached in (a result bundle's
  /// `ActionTestActivitySummary`), when recorded.
  public var activity: String? = nil
  /// The file name it was stored under, unique in its container (`Name_0_UUID.png`, Swift
  /// Testing's `name-<random>.png`), when it has one.
  public var storedName: String? = nil

  /// What tells it apart from another attachment of its name, test and context, in words:
  /// its activity and the name it was stored under (unique in its container); nil when
  /// neither is known.
  public var distinction: String? {
    var stored = storedName
    if stored == nil, case .file(let name) = payload { stored = name }
    let parts = [
      activity.map { "activity '\(EntryPathText.escaped($0))'" },
      stored.map { "attached as '\(EntryPathText.escaped($0))'" },
    ].compactMap { $0 }
    return parts.isEmpty ? nil : parts.joined(separator: ", ")
  }

  /// What kind of content it holds, from its type identifier and name.
  public var kind: AttachmentKind { AttachmentKind(typeIdentifier: typeIdentifier, name: name) }

  /// The stable name of a stored file name: `Name_0_UUID.png` and `Name_UUID.png` give
  /// `Name.png`.
  public static func stableName(fileName: String) -> String {
    let dot = fileName.lastIndex(of: ".")
    let stem = dot.map { String(fileName[..<$0]) } ?? fileName
    let suffix = dot.map { String(fileName[$0...]) } ?? ""
    var parts = stem.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
    guard parts.count > 1, isUUID(parts[parts.count - 1]) else { return fileName }
    parts.removeLast()
    if parts.count > 1, let last = parts.last, !last.isEmpty, last.allSatisfy(\.isASCIIDigit) {
      parts.removeLast()
    }
    return parts.joined(separator: "_") + suffix
  }

  private static func isUUID(_ text: String) -> Bool {
    let groups = text.split(separator: "-", omittingEmptySubsequences: false)
    return groups.map(\.count) == [8, 4, 4, 4, 12]
      && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// What an attachment holds, as far as landing references goes.
public enum AttachmentKind: Sendable, Hashable, CustomStringConvertible {
  case png, zip, heic, jpeg
  /// Anything else (text, property lists, data), with its type identifier.
  case other(String)

  init(typeIdentifier: String?, name: String) {
    let type = typeIdentifier?.lowercased() ?? ""
    let suffix = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
    switch (type, suffix) {
    case ("public.png", _), (_, "png"): self = .png
    case ("public.zip-archive", _), ("com.pkware.zip-archive", _), (_, "zip"): self = .zip
    case ("public.heic", _), ("public.heif", _), (_, "heic"), (_, "heif"): self = .heic
    case ("public.jpeg", _), (_, "jpg"), (_, "jpeg"): self = .jpeg
    default: self = .other(typeIdentifier ?? "no type")
    }
  }

  /// What the first bytes of a payload are, whatever its name and type say (Xcode stores
  /// screenshots as HEIC under `public.png`), or nil when none of these.
  public init?(sniffing prefix: [UInt8]) {
    let bytes = Array(prefix.prefix(12))
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      self = .png
    } else if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
      self = .zip
    } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
      self = .jpeg
    } else if bytes.count == 12, bytes[4..<8].elementsEqual("ftyp".utf8),
      ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"].contains(
        String(decoding: bytes[8..<12], as: UTF8.self))
    {
      self = .heic
    } else {
      return nil
    }
  }

  public var description: String {
    switch self {
    case .png: "PNG"
    case .zip: "zip"
    case .heic: "HEIC"
    case .jpeg: "JPEG"
    case .other(let type): type
    }
  }
}
