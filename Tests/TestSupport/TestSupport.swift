import Foundation
import ProcessSupport
import ReferenceContracts
import XCTest

/// A fresh temporary folder, removed when the test ends.
/// - Parameter test: The test that owns the folder.
/// - Returns: The folder's URL.
public func makeTemporaryFolder(_ test: XCTestCase) throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(
    "refimg-tests-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
  return url
}

/// What a finished child process printed, and its exit status.
public struct ProcessOutput: Sendable {
  /// The exit status.
  public var status: Int32
  /// Standard output.
  public var output: String
  /// Standard error.
  public var error: String
  /// Both streams, for failure messages.
  public var all: String { output + error }

  /// Creates a record of a finished process.
  public init(status: Int32, output: String, error: String) {
    self.status = status
    self.output = output
    self.error = error
  }
}

/// Runs a program with an argument array (never split on spaces), reading both pipes before
/// waiting so a chatty child cannot block, and killing it after `timeout` seconds so a hung
/// child fails the test instead of stalling CI.
/// - Parameters:
///   - executable: The program's path.
///   - arguments: Its arguments.
///   - folder: The working folder; the current one unless given.
///   - environment: The environment; this process's unless given.
///   - timeout: Seconds before the child is killed.
/// - Returns: The status and both streams.
@discardableResult
public func runProcess(
  _ executable: String, _ arguments: [String], in folder: URL? = nil,
  environment: [String: String]? = nil, timeout: TimeInterval = 600
) throws -> ProcessOutput {
  let run = try ChildProcess.capture(
    URL(fileURLWithPath: executable), arguments, in: folder, environment: environment,
    timeout: timeout)
  return ProcessOutput(status: run.status, output: run.output, error: run.error)
}

/// Why a product of this package could not be found beside the test bundle.
public struct MissingProduct: Error, CustomStringConvertible {
  /// The product.
  public var name: String
  /// The folders looked in.
  public var searched: [String]
  public var description: String {
    "\(name) is not built beside the test bundle (looked in \(searched)); build every product "
      + "first with `swift build --build-tests` (Scripts/test does), then rerun"
  }
}

/// An executable product built beside this test bundle (the same build folder, whatever
/// `--scratch-path` was used), such as `merge-refs`.
/// - Parameter name: The product's name.
/// - Returns: Its path.
public func builtProduct(_ name: String) throws -> URL {
  var folders: [URL] = []
  if let executable = Bundle.main.executableURL {
    folders.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
  }
  for bundle in [Bundle.main] + Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
    folders.append(bundle.bundleURL.deletingLastPathComponent())
  }
  folders.append(Bundle.main.bundleURL)
  folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
  for folder in folders {
    let candidate = folder.appendingPathComponent(name)
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
  }
  throw MissingProduct(name: name, searched: folders.map(\.path))
}

extension ProcessOutput {
  /// The status as the documented `ExitStatus` of `merge-refs`, `reference-shards` and the
  /// plugin, so a test names what it expects (`.refusedInput`) rather than a number; nil for a
  /// status no case defines (a crash, or another program's own code).
  public var exitStatus: ExitStatus? { ExitStatus(rawValue: status) }
}

/// Checks a program's whole output against the expected text, line by line: where the output
/// is the contract (a refusal, a summary), every line of it is checked, not fragments. A
/// failure names the first line that differs and prints the whole output.
public func assertWholeOutput(
  _ actual: String, _ expected: String, _ context: @autoclosure () -> String = "",
  file: StaticString = #filePath, line: UInt = #line
) {
  guard actual != expected else { return }
  let actualLines = actual.components(separatedBy: "\n")
  let expectedLines = expected.components(separatedBy: "\n")
  let first =
    zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
    ?? min(actualLines.count, expectedLines.count)
  let shown = { (lines: [String]) in first < lines.count ? lines[first] : "(no line)" }
  XCTFail(
    """
    output differs at line \(first + 1)\(context().isEmpty ? "" : " (\(context()))"):
      expected: \(shown(expectedLines))
      actual:   \(shown(actualLines))
    whole output:
    \(actual)
    """, file: file, line: line)
}
