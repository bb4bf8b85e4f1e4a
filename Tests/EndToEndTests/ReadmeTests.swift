import Foundation
import XCTest

/// Keeps README.md true to the binaries and files it quotes.
final class ReadmeTests: XCTestCase {
  private let checkout = FixturePackage.checkout

  private func readme() throws -> String {
    try String(contentsOf: checkout.appendingPathComponent("README.md"), encoding: .utf8)
  }

  /// A DocC article of ReferenceImageTesting, by name.
  private func article(_ name: String) throws -> String {
    try String(
      contentsOf: checkout.appendingPathComponent(
        "Sources/ReferenceImageTesting/ReferenceImageTesting.docc/\(name).md"), encoding: .utf8)
  }

  /// The fenced block of README.md (or `text`) that starts with `firstLine` (after a fence with
  /// the given language).
  private func block(startingWith firstLine: String, language: String = "", in text: String? = nil)
    throws -> String
  {
    let text = try text ?? readme()
    let start = try XCTUnwrap(
      text.range(of: "```\(language)\n" + firstLine), "README lacks the block")
    let body = text[start.upperBound...]
    let end = try XCTUnwrap(body.range(of: "\n```"))
    return firstLine + String(body[..<end.lowerBound])
  }

  func testReadme_mergeRefsHelp_matchesTheBinary() throws {
    let binary = try mergeRefsBinary()
    let help = try runProcess(binary.path, ["--help"])
    XCTAssertEqual(help.exitStatus, .success)
    let quoted = try block(startingWith: "OVERVIEW:", in: try article("MergeRefs"))
    XCTAssertEqual(
      quoted, help.output.trimmingCharacters(in: .newlines),
      "paste the output of `merge-refs --help` into the MergeRefs article")
  }

  /// The fenced `sh` block of README.md that starts with `firstLine`, as commands: one per
  /// line, comments dropped.
  private func commands(startingWith firstLine: String, in text: String? = nil) throws
    -> [String]
  {
    try block(startingWith: firstLine, language: "sh", in: text).split(separator: "\n").map {
      String($0.split(separator: "#", maxSplits: 1)[0]).trimmingCharacters(in: .whitespaces)
    }
  }

  /// The user's path of README.md (and the MergeRefs article's `--include` examples), its
  /// commands run exactly as written in a package that
  /// depends on this checkout: a failing first test run, the plugin, a passing run, and
  /// `swift run merge-refs` on archives laid out as CI artifacts.
  func testReadme_userPath_commandsWorkInADependentPackage() throws {
    let fixture = try FixturePackage.built()
    try fixture.reset()
    let shell = { (line: String, environment: [String: String]) in
      try fixture.shell(line, environment: environment)
    }
    XCTAssertEqual(try commands(startingWith: "swift test"), ["swift test"])
    let first = try shell("swift test", [:])
    XCTAssertNotEqual(first.status, 0, "no reference yet")
    XCTAssertTrue(
      first.all.contains("Tests/ChartTests/__References__/BarChartTests/bars.png"), first.all)

    let regenerate = try commands(
      startingWith: "swift package --allow-writing-to-package-directory regenerate-references")
    XCTAssertEqual(regenerate.count, 2)
    XCTAssertEqual(
      try commands(
        startingWith: regenerate[0], in: try article("RegenerateReferences")), regenerate,
      "the RegenerateReferences article shows README's plugin commands")
    let recorded = try shell(regenerate[0], [:])
    XCTAssertEqual(recorded.exitStatus, .success, recorded.all)
    XCTAssertTrue(recorded.output.contains("12 added, 0 updated, 0 unchanged"), recorded.all)
    // Nothing fails any more, so mode failed records nothing and the dry run has nothing to do.
    let dryRun = try shell(regenerate[1], [:])
    XCTAssertEqual(dryRun.exitStatus, .success, dryRun.all)
    XCTAssertTrue(dryRun.output.contains("no test stored an image (mode failed)"), dryRun.all)
    let verify = try shell("swift test", [:])
    XCTAssertEqual(verify.status, 0, verify.all)

    // CI: shards' archives downloaded as artifacts/<artifact>/*.zip.
    let generate = try fixture.test([], environment: ["IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(generate.status, 0, generate.all)
    let shard = fixture.root.appendingPathComponent("artifacts/reference-archives-0")
    try? FileManager.default.removeItem(at: shard.deletingLastPathComponent())
    try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
    for archive in try fixture.archives() {
      try FileManager.default.copyItem(
        at: archive, to: shard.appendingPathComponent(archive.lastPathComponent))
    }
    let ci = try commands(startingWith: "swift run merge-refs --require-complete")
    XCTAssertEqual(ci.count, 2)
    for line in ci {
      let run = try shell(line, [:])
      XCTAssertEqual(run.status, 0, "\(line)\n\(run.all)")
      XCTAssertTrue(run.output.contains("0 added, 0 updated, 12 unchanged"), run.all)
    }
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: fixture.root.appendingPathComponent("reference-review/index.html").path))

    // The --include examples, with a decision file as the review page exports it.
    try "# accepted\nTests/ChartTests/__References__/BarChartTests/bars.png\n".write(
      to: fixture.root.appendingPathComponent("reference-decisions.txt"), atomically: true,
      encoding: .utf8)
    // The MergeRefs article's --include examples.
    let include = try commands(
      startingWith: "swift run merge-refs --include 'Tests/ChartTests/**'",
      in: try article("MergeRefs"))
    XCTAssertEqual(include.count, 2)
    for line in include {
      let run = try shell(line, [:])
      XCTAssertEqual(run.status, 0, "\(line)\n\(run.all)")
      XCTAssertTrue(run.output.contains("0 added, 0 updated, "), run.all)
      XCTAssertTrue(run.output.contains(" unchanged, 0 conflicts"), run.all)
    }
  }

  /// The `Package.swift` snippet of README.md (and the same one in GettingStarted), made into a
  /// package with a reference PNG where the tests keep them: `swift build` prints no "unhandled
  /// file" warning for it, while the same package without the snippet's `exclude:` does. The
  /// warning comes from planning the build from the package graph, so building the `Charts`
  /// target is enough and does not compile the dependency.
  func testReadme_packageSnippet_excludesTheReferenceFolder() throws {
    let snippet = try block(startingWith: "dependencies: [", language: "swift")
    XCTAssertEqual(
      try block(
        startingWith: "dependencies: [", language: "swift", in: try article("GettingStarted")),
      snippet, "GettingStarted shows README's Package.swift snippet")
    XCTAssertTrue(snippet.contains("exclude: [\"__References__\"]"), snippet)
    let dependency = try XCTUnwrap(snippet.firstMatch(of: /\.package\(url: [^)]*\)/))
    let local = snippet.replacingCharacters(
      in: dependency.range, with: ".package(name: \"ReferenceImages\", path: \"\(checkout.path)\")")

    func build(_ targets: String) throws -> ProcessOutput {
      let root = try makeTemporaryFolder(self)
      let files = [
        "Package.swift":
          "// swift-tools-version:6.0\nimport PackageDescription\n\n"
          + "let package = Package(\n  name: \"Charts\",\n\(targets)\n)\n",
        "Sources/Charts/BarChart.swift": "public struct BarChart {}\n",
        "Tests/ChartTests/BarChartTests.swift": "import Charts\n",
        // SwiftPM does not warn about an empty file: any bytes will do.
        "Tests/ChartTests/__References__/BarChartTests/bars.png": "not a PNG, but not empty",
      ]
      for (path, text) in files {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(
          at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
      }
      // SwiftPM prints the warning when it plans a build from the manifest, which the first
      // build of a fresh folder (busy resolving and building the dependency's plugin tools) and a
      // build with an up-to-date plan both skip; a second build after the manifest changed
      // plans again, as a user's build after an edit of Package.swift does.
      let first = try runProcess(
        "/usr/bin/env", ["swift", "build", "--target", "Charts"], in: root)
      guard first.status == 0 else { return first }
      try FileManager.default.setAttributes(
        [.modificationDate: Date().addingTimeInterval(2)],
        ofItemAtPath: root.appendingPathComponent("Package.swift").path)
      let second = try runProcess(
        "/usr/bin/env", ["swift", "build", "--target", "Charts"], in: root)
      return ProcessOutput(
        status: second.status, output: first.output + second.output,
        error: first.error + second.error)
    }

    let clean = try build(local)
    XCTAssertEqual(clean.status, 0, clean.all)
    XCTAssertFalse(clean.all.contains("unhandled"), clean.all)
    XCTAssertFalse(clean.all.contains("bars.png"), clean.all)
    let warned = try build(local.replacing(/,\s*exclude: \["__References__"\]/, with: ""))
    XCTAssertEqual(warned.status, 0, warned.all)
    XCTAssertTrue(warned.all.contains("unhandled"), "the control build warns:\n\(warned.all)")
    XCTAssertTrue(warned.all.contains("__References__/BarChartTests/bars.png"), warned.all)
  }

  /// README's one-time setup of a target's reference root (which NestedFoldersEndToEndTests
  /// runs as pasted) is the block GettingStarted and WritingRenderTests show.
  func testReadme_setupBlock_isTheArticlesBlock() throws {
    let first = "mkdir -p Tests/ChartTests/__References__"
    let setup = try block(startingWith: first, language: "sh")
    XCTAssertTrue(setup.contains("touch Tests/ChartTests/__References__/.gitkeep"), setup)
    XCTAssertTrue(setup.contains("git add Tests/ChartTests/__References__/.gitkeep"), setup)
    for name in ["GettingStarted", "WritingRenderTests"] {
      XCTAssertEqual(
        try block(startingWith: first, language: "sh", in: try article(name)), setup, name)
    }
  }

  /// The recipe lives in one place, the workflow file: README and the articles link it and
  /// hold no copy of it (a copy would drift).
  func testReadme_ciRecipe_isLinkedNotCopied() throws {
    let file = ".github/workflows/reference-images.yml"
    let workflow = try String(
      contentsOf: checkout.appendingPathComponent(file), encoding: .utf8)
    let firstJobLine = try XCTUnwrap(
      workflow.split(separator: "\n").first { $0.hasPrefix("  verify:") })
    XCTAssertTrue(try readme().contains("](\(file))"), "README links \(file)")
    XCTAssertTrue(try article("RegeneratingInCI").contains(file))
    let documents =
      [
        "README.md", "CONTRIBUTING.md", "Documentation/Benchmarks.md",
        "Documentation/BenchmarksHistory.md",
      ]
      + (try FileManager.default.contentsOfDirectory(
        atPath: checkout.appendingPathComponent(
          "Sources/ReferenceImageTesting/ReferenceImageTesting.docc"
        ).path
      ).filter { $0.hasSuffix(".md") }.map {
        "Sources/ReferenceImageTesting/ReferenceImageTesting.docc/\($0)"
      })
    for document in documents {
      let text = try String(
        contentsOf: checkout.appendingPathComponent(document), encoding: .utf8)
      XCTAssertFalse(text.contains(workflow.prefix(60)), "\(document) copies the workflow")
      XCTAssertFalse(text.contains("\n" + firstJobLine + "\n"), "\(document) copies a job")
    }
  }

  func testReadme_workflow_isTheCommittedWorkflowAndValidYAML() throws {
    let file = checkout.appendingPathComponent(".github/workflows/reference-images.yml")
    let workflow = try String(contentsOf: file, encoding: .utf8)
    // The options the workflow passes to merge-refs and reference-shards must exist.
    let help = try runProcess(try mergeRefsBinary().path, ["--help"]).output
    for option in [
      "--require-shards", "--require-complete", "--timings-output", "--summary-markdown",
      "--github-annotations", "--report", "--compact",
    ] {
      XCTAssertTrue(workflow.contains(option))
      XCTAssertTrue(help.contains(option), "merge-refs has no \(option)")
    }
    let shardsHelp = try runProcess(
      try builtProduct("reference-shards").path, ["run", "--help"]
    ).output
    for option in [
      "--timings", "--output", "REFERENCE_SHARD_INDEX", "REFERENCE_SHARD_COUNT",
      "REFERENCE_SHARD_REPLICAS",
    ] {
      XCTAssertTrue(workflow.contains(option))
      XCTAssertTrue(shardsHelp.contains(option), "reference-shards run has no \(option)")
    }
    XCTAssertTrue(workflow.contains("IMAGE_GENERATION_MODE: 1"))
    // A user's repository has none of this repository's scripts: the tools come from the
    // dependency, and the system packages are the ones the package's library targets declare.
    XCTAssertFalse(workflow.contains("Scripts/"), "the workflow must work in a user's package")
    XCTAssertTrue(workflow.contains("swift run merge-refs --require-shards --require-complete"))
    XCTAssertTrue(workflow.contains("swift run reference-shards run"))
    let manifest = try String(
      contentsOf: checkout.appendingPathComponent("Package.swift"), encoding: .utf8)
    for library in ["CSpng", "CArchive", "CLibCrypto", "CCurl", "CLibXXHash"] {
      let declaration = try XCTUnwrap(
        manifest.firstMatch(of: try Regex("name: \"\(library)\"[^)]*\\.apt\\(\\[\"([^\"]+)\"")))
      let apt = try XCTUnwrap(declaration.output[1].substring)
      XCTAssertTrue(
        workflow.contains("apt-get install -y pkg-config") && workflow.contains(" \(apt)"),
        "the workflow installs \(apt) for \(library)")
    }
    let check = try runProcess(
      try WorkflowRunner.devToolsPython().path,
      [
        "-c",
        "import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); "
          + "print(sorted(d['jobs']))", file.path,
      ])
    XCTAssertEqual(check.status, 0, check.error)
    XCTAssertEqual(
      check.output.trimmingCharacters(in: .newlines), "['generate', 'merge', 'verify']")
  }
}

/// The `merge-refs` built beside this test binary (`swift build --build-tests` builds it).
func mergeRefsBinary() throws -> URL { try builtProduct("merge-refs") }
