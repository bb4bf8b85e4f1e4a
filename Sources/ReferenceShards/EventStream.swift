import Foundation
import ReferenceContracts

/// Reads the JSON lines `swift test --experimental-event-stream-output FILE` writes (Swift
/// Testing, 6.3): which test functions ran and how long each took.
///
/// Each line is `{"kind":"event","payload":{"kind":"testStarted","testID":…,"instant":
/// {"absolute":…}}}`. A function's ID ends with its source location
/// (`Module.param(n:)/File.swift:7:2`), which is dropped to give the `swift test list` name;
/// suites (no parentheses) are not tests of their own.
public enum EventStream {
  /// What a stream says of its test functions, read in one pass.
  public struct Results: Sendable, Equatable {
    /// Each function that ended or was skipped, once per time, with its seconds (0 when
    /// skipped), in order.
    public var runs: [ArchiveRun] = []
    /// The functions reported as skipped (`.disabled`, `.enabled(if:)`, or inside a skipped
    /// suite, whose functions are reported one by one), in order.
    public var skipped: [String] = []
    /// The source file (`BadgeTests.swift`) of each skipped function, by its listing name:
    /// the references it may own are in that file's reference folder.
    public var skippedFiles: [String: String] = [:]
    /// The functions that recorded an issue that is not a known one, in order, each once.
    public var failed: [String] = []
    /// The source file of each failed function, by its listing name.
    public var failedFiles: [String: String] = [:]
  }

  /// The runs and skips of a stream's test functions.
  /// - Parameter data: The file's bytes.
  /// - Returns: Each test's listing name and seconds, once per time it ran, and the skipped ones.
  public static func results(in data: Data) -> Results {
    var starts: [String: Double] = [:]
    var results = Results()
    forEachTestEvent(in: data) { payload, id, name in
      let instant = payload.instant?.absolute ?? 0
      switch payload.kind {
      case "testStarted": starts[id] = instant
      case "testEnded":
        let start = starts.removeValue(forKey: id) ?? instant
        results.runs.append(ArchiveRun(test: name, seconds: max(0, instant - start)))
      case "testSkipped":
        results.runs.append(ArchiveRun(test: name, seconds: 0))
        results.skipped.append(name)
        if let file = sourceFile(ofTestID: id) { results.skippedFiles[name] = file }
      case "issueRecorded" where payload.issue?.isKnown != true:
        if !results.failed.contains(name) { results.failed.append(name) }
        if let file = sourceFile(ofTestID: id) { results.failedFiles[name] = file }
      default: break
      }
    }
    return results
  }

  /// The test functions that ended or were skipped in a stream, in order.
  /// - Parameter data: The file's bytes.
  /// - Returns: Each test's listing name and seconds, once per time it ran.
  public static func testRuns(in data: Data) -> [ArchiveRun] { results(in: data).runs }

  /// Calls `body` with each event about a test function (not a suite): its payload, test ID
  /// and listing name.
  private static func forEachTestEvent(
    in data: Data, _ body: (Payload, String, String) -> Void
  ) {
    let decoder = JSONDecoder()
    for line in data.split(separator: 0x0A) where !line.isEmpty {
      // A line this tool does not understand (a newer stream version's record) is skipped.
      guard let record = try? decoder.decode(Line.self, from: line), record.kind == "event",
        let payload = record.payload, let id = payload.testID
      else { continue }
      let name = listingName(ofTestID: id)
      guard name.hasSuffix(")") else { continue }
      body(payload, id, name)
    }
  }

  /// A test ID without its trailing `/File.swift:line:column`.
  public static func listingName(ofTestID id: String) -> String {
    TestName.listing(swiftTestingID: id)
  }

  /// `File.swift` of a test ID ending with `/File.swift:line:column`; nil without one.
  public static func sourceFile(ofTestID id: String) -> String? {
    let name = listingName(ofTestID: id)
    guard name.count < id.count else { return nil }
    let location = id.dropFirst(name.count + 1)
    return location.split(separator: ":").first.map(String.init)
  }

  private struct Line: Decodable {
    var kind: String
    var payload: Payload?
  }

  private struct Payload: Decodable {
    var kind: String?
    var testID: String?
    var instant: Instant?
    var issue: Issue?
  }

  /// An issue's record: a known issue (`withKnownIssue`) fails nothing.
  private struct Issue: Decodable {
    var isKnown: Bool?
  }

  private struct Instant: Decodable {
    var absolute: Double
  }
}

/// One run of one test, as a manifest or an event stream reports it.
public struct ArchiveRun: Sendable, Equatable {
  /// The test's `swift test list` name.
  public var test: String
  /// Seconds it took.
  public var seconds: Double

  /// Creates a run.
  public init(test: String, seconds: Double) {
    self.test = test
    self.seconds = seconds
  }
}
