import ReferenceContracts
import XCTest

final class BuildLogDigestTests: XCTestCase {
  private let log = """
    warning: 'app': found 1 file(s) which are unhandled; explicitly declare them as resources or exclude from the target
        /p/Tests/AppTests/Area/__References__/X/a.png
    [3/9] Compiling App Render.swift
    /p/Sources/App/Render.swift:3:7: warning: initialization of immutable value 'x' was never used
    /p/Sources/App/Render.swift:3:7: warning: initialization of immutable value 'x' was never used
    /p/Tests/AppTests/RenderTests.swift:9:1: warning: 'foo()' is deprecated
    /p/.build/checkouts/Dep/Sources/Dep/Dep.swift:1:1: warning: var 'y' was never mutated
    /elsewhere/Local/Sources/Local/L.swift:1:1: warning: unused
    Build complete! (12.3s)
    """

  func testLines_countTheCompilersWarningsOwnAndOther_printSwiftPMs() {
    let digest = BuildLogDigest(log: log, packageRoot: "/p")
    XCTAssertEqual(digest.ownWarnings, 2)
    XCTAssertEqual(digest.otherWarnings, 2)
    XCTAssertEqual(
      digest.lines(logPath: "/p/.build/build-log.txt", succeeded: true),
      [
        "warning: 'app': found 1 file(s) which are unhandled; explicitly declare them as resources "
          + "or exclude from the target",
        "built (2 compiler warnings in your package's code, 2 compiler warnings in its "
          + "dependencies); full log: /p/.build/build-log.txt",
      ])
  }

  func testLines_failedBuild_listsItsErrors() {
    let failed = """
      /p/Sources/App/Render.swift:4:1: error: cannot find 'z' in scope
      /p/Sources/App/Render.swift:4:1: error: cannot find 'z' in scope
      error: fatalError
      """
    XCTAssertEqual(
      BuildLogDigest(log: failed, packageRoot: "/p").lines(logPath: "L", succeeded: false),
      [
        "/p/Sources/App/Render.swift:4:1: error: cannot find 'z' in scope", "error: fatalError",
        "the build failed; full log: L",
      ])
  }

  func testLines_missingReferenceRoot_printsTheSetupCommand() {
    let missing = """
      warning: 'app': Invalid Exclude '/p/Tests/AppTests/__References__': File not found.
      warning: 'app': Invalid Exclude '/p/Tests/AppTests/Fixtures': File not found.
      Build complete! (1.0s)
      """
    let digest = BuildLogDigest(log: missing, packageRoot: "/p")
    XCTAssertEqual(digest.missingReferenceRoots, ["Tests/AppTests/__References__"])
    XCTAssertEqual(
      digest.lines(logPath: "L", succeeded: true),
      [
        "warning: 'app': Invalid Exclude '/p/Tests/AppTests/__References__': File not found.",
        "warning: 'app': Invalid Exclude '/p/Tests/AppTests/Fixtures': File not found.",
        "make Tests/AppTests/__References__ once and commit it, and no build warns again: "
          + "mkdir -p Tests/AppTests/__References__ && touch "
          + "Tests/AppTests/__References__/.gitkeep && git add "
          + "Tests/AppTests/__References__/.gitkeep",
        "built; full log: L",
      ])
  }
}
