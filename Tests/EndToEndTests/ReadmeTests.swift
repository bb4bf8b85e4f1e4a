import Foundation
import XCTest

/// Keeps README.md true to the binaries and files it quotes.
final class ReadmeTests: XCTestCase {
  private let checkout = FixturePackage.checkout

  private func readme() throws -> String {
    try String(contentsOf: checkout.appendingPathComponent("README.md"), encoding: .utf8)
  }

  /// The fenced block of README.md that starts with `firstLine` (after a fence with the given
  /// language).
  private func block(startingWith firstLine: String, language: String = "") throws -> String {
    let text = try readme()
    let start = try XCTUnwrap(
      text.range(of: "```\(language)\n" + firstLine), "README lacks the block")
    let body = text[start.upperBound...]
    let end = try XCTUnwrap(body.range(of: "\n```"))
    return firstLine + String(body[..<end.lowerBound])
  }

  func testReadme_mergeRefsHelp_matchesTheBinary() throws {
    let binary = try mergeRefsBinary()
    let help = try runProcess(binary.path, ["--help"])
    XCTAssertEqual(help.status, 0)
    let quoted = try block(startingWith: "OVERVIEW:")
    XCTAssertEqual(
      quoted, help.output.trimmingCharacters(in: .newlines),
      "paste the output of `merge-refs --help` into README.md")
  }

  func testReadme_workflow_isTheCommittedWorkflowAndValidYAML() throws {
    let file = checkout.appendingPathComponent(".github/workflows/reference-images.yml")
    let workflow = try String(contentsOf: file, encoding: .utf8)
    let quoted = try block(startingWith: "#", language: "yaml")
    XCTAssertEqual(quoted, workflow.trimmingCharacters(in: .newlines))
    // The options the workflow passes to merge-refs must exist.
    let help = try runProcess(try mergeRefsBinary().path, ["--help"]).output
    for option in ["--require-complete", "--report"] {
      XCTAssertTrue(workflow.contains(option))
      XCTAssertTrue(help.contains(option), "merge-refs has no \(option)")
    }
    XCTAssertTrue(workflow.contains("IMAGE_GENERATION_MODE: 1"))
    for script in ["Scripts/install-dependencies", "Scripts/merge-refs"] {
      XCTAssertTrue(workflow.contains(script))
      XCTAssertTrue(
        FileManager.default.isExecutableFile(atPath: checkout.appendingPathComponent(script).path))
    }
    let check = try runProcess(
      "/usr/bin/env",
      [
        "python3", "-c",
        "import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); "
          + "print(sorted(d['jobs']))", file.path,
      ])
    guard check.status == 0 || !check.error.contains("No module named") else {
      throw XCTSkip("PyYAML is not installed; the YAML syntax check needs it")
    }
    XCTAssertEqual(check.status, 0, check.error)
    XCTAssertEqual(
      check.output.trimmingCharacters(in: .newlines), "['generate', 'merge', 'verify']")
  }
}

/// The `merge-refs` built beside this test binary (`swift build --build-tests` builds it).
func mergeRefsBinary() throws -> URL { try builtProduct("merge-refs") }
