import CLibCrypto
import CZstd
import Foundation

/// Writes result bundles in the grammar the real ones use (typed object text, zstd objects,
/// content ids), for tests of what the real fixtures do not hold: attached archives,
/// conflicting renders, hostile and damaged bundles, and thousands of attachments.
public struct SyntheticBundle {
  /// A node of the typed object text.
  public indirect enum Node {
    case object(String, [(String, Node)], [Node])
    /// A `V` value's bytes, as they are (hostile tests put invalid UTF-8 here).
    case text([UInt8])

    public static func string(_ value: String) -> Node {
      .object("String", [("_v", .text(Array(value.utf8)))], [])
    }

    public static func array(_ items: [Node]) -> Node { .object("Array", [], items) }

    public static func reference(_ id: String) -> Node {
      .object("Reference", [("id", .string(id))], [])
    }
  }

  public struct Attachment {
    public var fileName: String
    /// The file name's bytes as written, when they must not be valid UTF-8.
    public var rawFileName: [UInt8]?
    public var typeIdentifier: String
    public var bytes: [UInt8]

    public init(
      fileName: String, rawFileName: [UInt8]? = nil, typeIdentifier: String = "public.png",
      bytes: [UInt8]
    ) {
      self.fileName = fileName
      self.rawFileName = rawFileName
      self.typeIdentifier = typeIdentifier
      self.bytes = bytes
    }
  }

  public struct Test {
    public var identifier: String
    public var configuration: String
    public var device: String
    public var arguments: [String]
    public var repetition: Int?
    public var attachments: [Attachment]

    public init(
      identifier: String, configuration: String = "Default", device: String = "iPhone 16",
      arguments: [String] = [], repetition: Int? = nil, attachments: [Attachment]
    ) {
      self.identifier = identifier
      self.configuration = configuration
      self.device = device
      self.arguments = arguments
      self.repetition = repetition
      self.attachments = attachments
    }
  }

  public let url: URL
  public var compress = true
  /// Ids of the objects written, by role, for tests that damage one.
  public private(set) var summaryIDs: [String] = []
  public private(set) var payloadIDs: [String] = []
  public private(set) var testsID = ""
  public private(set) var rootID = ""

  public init(url: URL) {
    self.url = url
  }

  /// Writes a bundle: one action per device, one plan run summary per configuration.
  public mutating func write(_ tests: [Test]) throws {
    try FileManager.default.createDirectory(
      at: url.appendingPathComponent("Data"), withIntermediateDirectories: true)
    var actions: [Node] = []
    for device in unique(tests.map(\.device)) {
      var plans: [Node] = []
      for configuration in unique(tests.filter { $0.device == device }.map(\.configuration)) {
        var metadata: [Node] = []
        for test in tests where test.device == device && test.configuration == configuration {
          let summary = try writeObject(summary(test), references: test.attachments.count)
          summaryIDs.append(summary)
          metadata.append(
            .object(
              "ActionTestMetadata",
              [("identifier", .string(test.identifier)), ("summaryRef", .reference(summary))],
              []))
        }
        let group = Node.object(
          "ActionTestSummaryGroup", [("subtests", .array(metadata))], [])
        let testable = Node.object("ActionTestableSummary", [("tests", .array([group]))], [])
        plans.append(
          .object(
            "ActionTestPlanRunSummary",
            [("name", .string(configuration)), ("testableSummaries", .array([testable]))], []))
      }
      testsID = try writeObject(
        .object("ActionTestPlanRunSummaries", [("summaries", .array(plans))], []),
        references: plans.count)
      actions.append(action(device: device, testsID: testsID))
    }
    rootID = try writeObject(
      .object("ActionsInvocationRecord", [("actions", .array(actions))], []),
      references: actions.count)
    try writeInfo(root: rootID)
  }

  public func action(device: String, testsID: String) -> Node {
    .object(
      "ActionRecord",
      [
        (
          "runDestination",
          .object("ActionRunDestinationRecord", [("displayName", .string(device))], [])
        ),
        ("actionResult", .object("ActionResult", [("testsRef", .reference(testsID))], [])),
      ], [])
  }

  private mutating func summary(_ test: Test) throws -> Node {
    var attachments: [Node] = []
    for attachment in test.attachments {
      let id = try writePayload(attachment.bytes)
      payloadIDs.append(id)
      attachments.append(
        .object(
          "ActionTestAttachment",
          [
            (
              "filename",
              .object(
                "String",
                [("_v", .text(attachment.rawFileName ?? Array(attachment.fileName.utf8)))], [])
            ),
            ("name", .string(attachment.fileName)),
            ("payloadRef", .reference(id)),
            ("uniformTypeIdentifier", .string(attachment.typeIdentifier)),
          ], []))
    }
    let activity = Node.object(
      "ActionTestActivitySummary",
      [
        ("title", .string("Attached Recorded Snapshot")),
        (
          "subactivities",
          .array([
            .object("ActionTestActivitySummary", [("attachments", .array(attachments))], [])
          ])
        ),
      ], [])
    var fields: [(String, Node)] = [
      ("identifier", .string(test.identifier)), ("activitySummaries", .array([activity])),
    ]
    if !test.arguments.isEmpty {
      fields.append(
        (
          "arguments",
          .array(
            test.arguments.map { value in
              .object(
                "TestArgument",
                [("value", .object("TestValue", [("description", .string(value))], []))], [])
            })
        ))
    }
    if let repetition = test.repetition {
      fields.append(
        (
          "repetitionPolicySummary",
          .object(
            "ActionTestRepetitionPolicySummary", [("iteration", .string("\(repetition)"))], [])
        ))
    }
    return .object("ActionTestSummary", fields, [])
  }

  /// Writes `Info.plist` naming a root.
  public func writeInfo(root: String) throws {
    let plist = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0"><dict>
      <key>rootId</key><dict><key>hash</key><string>\(root)</string></dict>
      <key>version</key><dict><key>major</key><integer>3</integer><key>minor</key><integer>53</integer></dict>
      </dict></plist>
      """
    try Data(plist.utf8).write(to: url.appendingPathComponent("Info.plist"))
  }

  /// Writes a typed object; an object with references gets an id of its own (Apple's
  /// derivation for those is not published, and the reader does not check them).
  public mutating func writeObject(_ node: Node, references: Int) throws -> String {
    var defined = Set<String>()
    let text = Self.encode(node, defined: &defined)
    let stored = compress ? Self.zstd(text) : text
    let id = references == 0 ? Self.contentID(stored) : Self.randomID()
    try write(stored, id: id, references: references)
    return id
  }

  /// Writes a payload under its content id.
  public mutating func writePayload(_ bytes: [UInt8]) throws -> String {
    let stored = compress ? Self.zstd(bytes) : bytes
    let id = Self.contentID(stored)
    try write(stored, id: id, references: 0)
    return id
  }

  public func write(_ stored: [UInt8], id: String, references: Int) throws {
    let data = url.appendingPathComponent("Data")
    try Data(stored).write(to: data.appendingPathComponent("data." + id))
    try Data([UInt8(references)]).write(to: data.appendingPathComponent("refs." + id))
  }

  public func objectURL(_ id: String) -> URL {
    url.appendingPathComponent("Data/data." + id)
  }

  public static func encode(_ node: Node, defined: inout Set<String>) -> [UInt8] {
    switch node {
    case .text(let bytes):
      return Array("V\(bytes.count):".utf8) + bytes
    case .object(let type, let fields, let items):
      var out = Array("[".utf8)
      if defined.insert(type).inserted {
        out += Array("T[K2:_nV\(type.utf8.count):\(type)]".utf8)
      } else {
        out += Array("S\(type.utf8.count):\(type)".utf8)
      }
      for (key, value) in fields {
        out += Array("K\(key.utf8.count):\(key)".utf8) + encode(value, defined: &defined)
      }
      for item in items { out += encode(item, defined: &defined) }
      return out + Array("]".utf8)
    }
  }

  public static func zstd(_ bytes: [UInt8], declaresSize: Bool = true) -> [UInt8] {
    let context = ZSTD_createCCtx()
    defer { ZSTD_freeCCtx(context) }
    ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, declaresSize ? 1 : 0)
    var out = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
    let size = out.withUnsafeMutableBytes { target in
      bytes.withUnsafeBytes { source in
        ZSTD_compress2(context, target.baseAddress, target.count, source.baseAddress, source.count)
      }
    }
    precondition(ZSTD_isError(size) == 0)
    return Array(out[0..<size])
  }

  public static func contentID(_ stored: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: 64)
    var length: UInt32 = 0
    _ = stored.withUnsafeBytes { input in
      EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_blake2b512(), nil)
    }
    return "0~"
      + Data(digest).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
  }

  public static func randomID() -> String {
    contentID((0..<32).map { _ in UInt8.random(in: 0...255) })
  }

  private func unique(_ values: [String]) -> [String] {
    var seen = Set<String>()
    return values.filter { seen.insert($0).inserted }
  }
}
