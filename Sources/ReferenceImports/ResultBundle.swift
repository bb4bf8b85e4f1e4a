import Foundation

/// An Xcode result bundle (`.xcresult`) read directly, without `xcresulttool`: `Info.plist`
/// names the root object, and the typed object graph leads from it through actions, test plan
/// run summaries, testable summaries, groups, test metadata and summaries to activities
/// (recursive, failure summaries too) and their attachments. `database.sqlite3` is not needed.
public struct ResultBundle: Sendable {
  /// The bundle.
  public let url: URL
  /// The root object's id.
  public let rootID: String
  let limits: ImportLimits

  /// Opens a bundle: its `Info.plist` and `Data` folder, refusing links.
  public init(url: URL, limits: ImportLimits = .default) throws(ImportError) {
    self.url = url
    self.limits = limits
    rootID = try Self.rootID(of: url)
    _ = try ObjectStore(bundle: url, limits: limits)
  }

  /// Whether a folder is a bundle: named `.xcresult`, or holding `Info.plist` and `Data`.
  public static func recognizes(_ url: URL) -> Bool {
    url.pathExtension == "xcresult"
      || FileStatus.of(url.appendingPathComponent("Info.plist").path) == .regularFile
        && FileStatus.of(url.appendingPathComponent("Data").path) == .directory
  }

  /// Every attachment reachable from the root, in the graph's order, with its provenance.
  /// Objects off the attachment path (logs, coverage, diagnostics) are never read.
  public func attachments() throws(ImportError) -> [ImportedAttachment] {
    var walk = BundleGraphWalk(store: try ObjectStore(bundle: url, limits: limits))
    return try walk.attachments(root: rootID)
  }

  /// The bytes of an attachment payload, checked against its content id.
  public func payload(_ id: String) throws(ImportError) -> [UInt8] {
    try ObjectStore(bundle: url, limits: limits).payload(id)
  }

  /// Its sources: each attached archive of this package, then its PNG attachments by render
  /// context, placed by the `__Snapshots__` folders of `destination`; what lands nowhere is
  /// listed with why by the first image source (an empty one when none lands).
  public func sources(destination: URL) throws(ImportError) -> [ImportedSource] {
    try ImportedSources.sources(
      of: try attachments(), reader: .resultBundle(url, limits: limits),
      placedIn: destination)
  }

  private static func rootID(of url: URL) throws(ImportError) -> String {
    let path = url.appendingPathComponent("Info.plist").path
    let refuse = { (reason: String) in
      ImportError(container: url.path, object: "Info.plist", reason: reason)
    }
    guard FileStatus.of(url.path) == .directory else {
      throw refuse("the bundle is not a folder (or is a symbolic link)")
    }
    switch FileStatus.of(path) {
    case .regularFile: break
    case .missing: throw refuse("missing: not a result bundle, or a damaged copy")
    default: throw refuse("not a regular file (a symbolic link is never followed)")
    }
    let bytes: [UInt8]
    do { bytes = try FileStatus.read(path, limit: 1 << 20) } catch {
      throw refuse("cannot be read: \(error)")
    }
    let plist = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
    guard let info = plist as? [String: Any],
      let root = (info["rootId"] as? [String: Any])?["hash"] as? String
    else { throw refuse("no rootId: not a result bundle Xcode 11 or later wrote") }
    guard ObjectStore.isValidID(root) else { throw refuse("rootId is not an object id") }
    return root
  }
}

extension AttachmentReader {
  /// A bundle's payloads, read from its object store alone (its `Info.plist` was read when it
  /// was listed) and checked against their content id.
  public static func resultBundle(_ url: URL, limits: ImportLimits) -> AttachmentReader {
    AttachmentReader(
      container: url,
      payload: { attachment throws(ImportError) in
        guard case .object(let id) = attachment.payload else {
          throw AttachmentReader.foreign(attachment, in: url)
        }
        return try ObjectStore(bundle: url, limits: limits).payload(id)
      },
      prefix: { attachment, count throws(ImportError) in
        guard case .object(let id) = attachment.payload else {
          throw AttachmentReader.foreign(attachment, in: url)
        }
        return try ObjectStore(bundle: url, limits: limits).payloadPrefix(id, count: count)
      })
  }
}

/// Follows the graph from the root to the attachments, refusing cycles, chains of references
/// deeper than the limit and more objects than the limit.
struct BundleGraphWalk {
  let store: ObjectStore
  private var chain: [String] = []
  private var objectsRead = 0
  private var found: [ImportedAttachment] = []

  init(store: ObjectStore) {
    self.store = store
  }

  mutating func attachments(root: String) throws(ImportError) -> [ImportedAttachment] {
    do {
      try follow(root, "the root object (Info.plist rootId)") {
        (walk, record) throws(ImportError) in
        for action in record.array("actions") { try walk.visit(action: action) }
      }
    } catch {
      // What could still be read is said; the bundle is refused whole all the same, since a
      // damaged graph can no longer say which renders belong together.
      var error = error
      error.reason += "; the \(found.count) attachments found before it are not used either"
      throw error
    }
    return found
  }

  private mutating func visit(action: TypedObject) throws(ImportError) {
    let device = action["runDestination"]?.string("displayName")
    guard let testsID = action["actionResult"]?["testsRef"]?.string("id") else { return }
    try follow(testsID, "the test plan run summaries") { (walk, summaries) throws(ImportError) in
      for plan in summaries.array("summaries") {
        let context = AttachmentProvenance(
          test: "", configuration: plan.string("name"), device: device)
        for testable in plan.array("testableSummaries") {
          for test in testable.array("tests") { try walk.visit(test: test, context) }
        }
      }
    }
  }

  /// A group (with subtests), a test's metadata (with a reference to its summary), or a
  /// summary written inline.
  private mutating func visit(test: TypedObject, _ context: AttachmentProvenance)
    throws(ImportError)
  {
    if let summaryID = test["summaryRef"]?.string("id") {
      let name = test.string("identifier") ?? "a test"
      try follow(summaryID, "the summary of \(name)") { (walk, summary) throws(ImportError) in
        try walk.visit(summary: summary, context)
      }
    } else if test.type == "ActionTestSummary" {
      try visit(summary: test, context)
    }
    for subtest in test.array("subtests") { try visit(test: subtest, context) }
  }

  /// A test's summary: its arguments and repetition, and every attachment of its activities
  /// (at any depth) and failure summaries.
  private mutating func visit(summary: TypedObject, _ context: AttachmentProvenance)
    throws(ImportError)
  {
    var provenance = context
    provenance.test = summary.string("identifier") ?? summary.string("name") ?? "unnamed test"
    provenance.arguments = summary.array("arguments").compactMap {
      $0["value"]?.string("description")
    }
    provenance.repetition = summary["repetitionPolicySummary"]?.string("iteration").flatMap {
      Int($0)
    }
    var attachments: [TypedObject] = []
    var activities: [String?] = []
    summary.forEachAttachment(activity: nil) {
      attachments.append($0)
      activities.append($1)
    }
    for (attachment, activity) in zip(attachments, activities) {
      try add(attachment, provenance, activity)
    }
  }

  private mutating func add(
    _ attachment: TypedObject, _ provenance: AttachmentProvenance, _ activity: String?
  ) throws(ImportError) {
    // An attachment deleted after a passing test keeps its record and loses its payload.
    guard let payloadID = attachment["payloadRef"]?.string("id") else { return }
    let fileName = attachment.string("filename") ?? attachment.string("name") ?? payloadID
    let name = ImportedAttachment.stableName(fileName: fileName)
    let object = "attachment '\(EntryPathText.escaped(fileName))' of \(provenance.test)"
    if let reason = AttachmentName.problem(name) {
      throw ImportError(
        container: store.bundle.path, object: object,
        reason: reason)
    }
    guard ObjectStore.isValidID(payloadID) else {
      throw ImportError(
        container: store.bundle.path, object: object, reason: "its payload id is not an object id")
    }
    guard found.count < store.limits.maximumAttachments else {
      throw ImportError(
        container: store.bundle.path, object: object,
        reason: "more than \(store.limits.maximumAttachments) attachments")
    }
    found.append(
      ImportedAttachment(
        name: name, typeIdentifier: attachment.string("uniformTypeIdentifier"),
        payload: .object(id: payloadID), provenance: provenance, activity: activity,
        storedName: fileName))
  }

  /// Reads and parses an object on the current chain of references, then visits it.
  private mutating func follow(
    _ id: String, _ what: String,
    _ visit: (inout BundleGraphWalk, TypedObject) throws(ImportError) -> Void
  ) throws(ImportError) {
    let object = "Data/data.\(id) (\(what))"
    guard !chain.contains(id) else {
      throw ImportError(
        container: store.bundle.path, object: object,
        reason: "a reference cycle: the object refers back to itself through \(chain.count) objects"
      )
    }
    guard chain.count < store.limits.maximumReferenceDepth else {
      throw ImportError(
        container: store.bundle.path, object: object,
        reason: "references nested deeper than \(store.limits.maximumReferenceDepth)")
    }
    objectsRead += 1
    guard objectsRead <= store.limits.maximumObjects else {
      throw ImportError(
        container: store.bundle.path, object: object,
        reason: "more than \(store.limits.maximumObjects) objects")
    }
    let parsed: TypedObject
    do {
      parsed = try TypedObjectParser.parse(
        try store.object(id), maximumNesting: store.limits.maximumNesting)
    } catch let failure as TypedObjectParser.Failure {
      throw ImportError(container: store.bundle.path, object: object, reason: failure.reason)
    } catch let error as ImportError {
      throw ImportError(container: error.container, object: object, reason: error.reason)
    } catch {
      throw ImportError(container: store.bundle.path, object: object, reason: "\(error)")
    }
    chain.append(id)
    defer { chain.removeLast() }
    try visit(&self, parsed)
  }
}
