import Foundation
import ReferenceImageCore
import XCTest

/// The review page's decisions, in headless Chromium: the page's own script runs, a card is
/// rejected by clicking it, the exported file and command are read back, and running that
/// command lands exactly the accepted images.
final class ReviewDecisionTests: XCTestCase {
  private let folder = "Tests/ChartTests/__References__/BarChart"
  private func path(_ name: String) -> String { "\(folder)/\(name).png" }

  private func chromium() throws -> String {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    guard let found else {
      throw XCTSkip(
        "chromium is not installed (apt-get install chromium); Scripts/test installs it")
    }
    return found
  }

  /// Opens `page` in headless Chromium and returns the DOM after its scripts ran.
  private func renderedDOM(_ page: URL) throws -> String {
    let run = try runProcess(
      try chromium(),
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000",
        "--dump-dom", page.path,
      ])
    XCTAssertEqual(run.status, 0, run.error)
    return run.output
  }

  /// The text of the element with `id` in serialized HTML.
  private func text(ofID id: String, in html: String) throws -> String {
    let start = try XCTUnwrap(html.range(of: "id=\"\(id)\">"), "no #\(id) in the page")
    let end = try XCTUnwrap(html[start.upperBound...].range(of: "</pre>"))
    return String(html[start.upperBound..<end.lowerBound])
      .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
      .replacingOccurrences(of: "&amp;", with: "&")
  }

  func testReviewPage_rejectOneCard_exportedDecisionLandsExactlyTheAccepted() throws {
    _ = try chromium()
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("my package")
    for (name, seed) in [("old-a", 1), ("old-b", 2)] {
      try writeFile(
        try PNGEncoder().encode(try noiseImage(seed: seed)),
        to: destination.appendingPathComponent(path(name)))
    }
    var builder = ArchiveBuilder(generatedAt: day(1))
    let written = [
      ("new-a", try noiseImage(seed: 10)), ("new-b", try noiseImage(seed: 11)),
      ("old-a", try changingPixels(try noiseImage(seed: 1), count: 5)),
      ("old-b", try changingPixels(try noiseImage(seed: 2), count: 7)),
    ]
    var archivePNG: [String: [UInt8]] = [:]
    for (name, image) in written { archivePNG[path(name)] = try builder.add(path(name), image) }
    let archive = root.appendingPathComponent("artifacts/run 1.zip")
    try builder.write(to: archive)
    let before = try snapshot(destination)

    let review = root.appendingPathComponent("review.html")
    let dryRun = try MergeRefs.run([
      "--dry-run", "--report", review.path, archive.path, destination.path,
    ])
    XCTAssertEqual(dryRun.status, 0, dryRun.all)
    XCTAssertTrue(dryRun.output.contains("2 added, 2 updated"), dryRun.output)

    // Drive the page as a person would: reject all, accept all, then reject old-b. Each step's
    // export is copied into the page where the dumped DOM shows it.
    let rejected = path("old-b")
    let driver = """
      <script>
      const exported=id=>{const href=document.getElementById('download').getAttribute('href');
        const pre=document.createElement('pre');pre.id=id;
        pre.textContent=decodeURIComponent(href.slice(href.indexOf(',')+1));
        document.body.appendChild(pre);};
      document.getElementById('reject-all').click();exported('after-reject-all');
      document.getElementById('accept-all').click();exported('after-accept-all');
      document.querySelector('.card[data-path="\(rejected)"] input.accept').click();
      exported('exported');
      </script>
      """
    let page = try String(contentsOf: review, encoding: .utf8)
      .replacingOccurrences(of: "</body>", with: driver + "</body>")
    let driven = root.appendingPathComponent("driven.html")
    try page.write(to: driven, atomically: true, encoding: .utf8)
    let dom = try renderedDOM(driven)

    let accepted = { (file: String) in
      file.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }
    XCTAssertEqual(accepted(try text(ofID: "after-reject-all", in: dom)), [])
    XCTAssertEqual(accepted(try text(ofID: "after-accept-all", in: dom)).count, 4)
    let decision = try text(ofID: "exported", in: dom)
    XCTAssertEqual(accepted(decision), [path("new-a"), path("new-b"), path("old-a")], decision)
    XCTAssertTrue(dom.contains("3 of 4 accepted"), "the page counts the decision")
    XCTAssertTrue(
      dom.contains(#"<section class="card updated rejected""#), "the rejected card is marked")

    // The page's command, run as written in the folder holding the downloaded file.
    let command = try text(ofID: "command", in: dom)
    XCTAssertTrue(command.contains("--include-from reference-decisions.txt"), command)
    XCTAssertTrue(decision.contains("# " + command), "the file says how to use it")
    let downloads = root.appendingPathComponent("Downloads")
    try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
    try decision.write(
      to: downloads.appendingPathComponent("reference-decisions.txt"), atomically: true,
      encoding: .utf8)
    let land = try runProcess("/bin/sh", ["-c", command], in: downloads)
    XCTAssertEqual(land.status, 0, land.all)
    XCTAssertTrue(land.output.contains("2 added, 1 updated, 0 unchanged"), land.output)
    XCTAssertTrue(land.output.contains("  \(rejected) (updated)"), land.output)

    let after = try snapshot(destination)
    XCTAssertEqual(
      Set(after.keys), Set(before.keys).union([path("new-a"), path("new-b")]), "no other file")
    for name in ["new-a", "new-b", "old-a"] {
      XCTAssertEqual(after[path(name)], .file(try XCTUnwrap(archivePNG[path(name)])), name)
    }
    XCTAssertEqual(after[rejected], before[rejected], "the rejected image is left as it was")
  }
}
