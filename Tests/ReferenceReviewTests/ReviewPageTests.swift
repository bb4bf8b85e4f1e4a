import Foundation
import ReferenceArchive
import ReferenceImageCore
import XCTest

/// The review page (`Sources/ReferenceReview/ReviewPage`) in real Chromium: Playwright, from the
/// dev-tools virtual environment, runs `__Fixtures__/review-page/review_page_driver.py`, which
/// presses keys, clicks the download link and takes screenshots; these tests assert on its JSON
/// and decode its screenshots.
final class ReviewPageTests: XCTestCase {
  // MARK: Triage from the keyboard

  func testKeyboardTriage_rejectAcceptUndoAndGroupDecision_reachTheDownloadedDecisionFile()
    throws
  {
    let report = try makeReport(cards: 40)
    let decidable = report.cards.filter { $0.outcome == "added" || $0.outcome == "updated" }
      .map(\.path).sorted()
    let ordered = report.cards.map(\.path).sorted()
    let grouped = try XCTUnwrap(
      report.cards.first { card in
        card.group != nil && report.cards.filter { $0.group == card.group }.count > 2
      }, "the report needs a change shared by several images")
    let group = Set(report.cards.filter { $0.group == grouped.group }.map(\.path))

    let result = try drive(
      report,
      steps: [
        ["state": "start"], ["export": "initial"],
        ["press": ["j"]], ["state": "second"],
        // Back to the first card: reject it, accept the second, reject the third, undo that.
        ["press": ["k", "r", "a", "r", "u"]], ["state": "after-undo"], ["export": "after-undo"],
        // Find a card of the group by path, reject the whole group, undo, reject it again.
        ["press": ["/"]], ["type": grouped.path], ["press": ["Enter", "Shift+R"]],
        ["state": "group"], ["export": "group"],
        ["press": ["u"]], ["export": "group-undone"],
        ["press": ["Shift+R"]], ["reload": true], ["state": "reloaded"], ["export": "reloaded"],
        ["press": ["?"]], ["state": "help"], ["press": ["Escape"]], ["state": "help-closed"],
        ["press": ["n"]], ["state": "next-undecided"],
        ["press": ["f"]], ["state": "undecided-only"], ["press": ["f", "f", "f", "g"]],
        ["state": "collapsed"],
        // The same decisions with the mouse.
        ["press": ["g"]], ["click": "#reject-all"], ["export": "reject-all"],
        ["click": "#accept-all"], ["export": "accept-all"],
        ["click": ".card.current .decide .reject"], ["export": "clicked-reject"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")

    let start = try XCTUnwrap(result.states["start"])
    XCTAssertEqual(start.path, ordered[0], "the first card, in path order, is current")
    XCTAssertTrue(
      start.changesState?.hasPrefix("Pending: nothing is written yet (a dry run).") == true,
      "the first screen says the changes are pending: \(start.changesState ?? "no line")")
    XCTAssertEqual(start.status, "undecided (lands)")
    XCTAssertEqual(
      start.acceptedCount,
      "0 accepted · 0 rejected · \(decidable.count) undecided — "
        + "\(decidable.count) of \(decidable.count) land",
      "before any decision nothing is accepted: the undecided changes land")
    XCTAssertEqual(start.downloadLabel, "Download accepted paths")
    XCTAssertEqual(start.variantGroups, [], "no variant, no groups")
    XCTAssertNil(start.variantHeading, "no variant, no heading")
    XCTAssertNil(start.comparedWith, "no variant: the card looks as it always did")
    XCTAssertLessThanOrEqual(start.cardsInDocument, 8, "only the cards near the viewport exist")
    XCTAssertEqual(result.states["second"]?.path, ordered[1], "j moves to the next card")

    let initial = try XCTUnwrap(result.exports["initial"])
    XCTAssertEqual(initial.file, "reference-decisions.txt")
    XCTAssertEqual(initial.accepted, decidable, "undecided changes land")
    // Each line binds its path to the pixels the card showed: before (- for an added image)
    // and after.
    let cardsByPath = Dictionary(uniqueKeysWithValues: report.cards.map { ($0.path, $0) })
    for line in initial.lines {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      let card = try XCTUnwrap(cardsByPath[fields[0]], line)
      XCTAssertEqual(fields.count, 3, line)
      XCTAssertEqual(fields.dropFirst().first, card.beforePixels ?? "-", line)
      XCTAssertEqual(fields.last, card.afterPixels, line)
      XCTAssertEqual(fields[2].count, 64, line)
    }
    XCTAssertTrue(initial.text.contains("# \(start.command)\n"), initial.text)
    XCTAssertTrue(start.command.contains("--include-from reference-decisions.txt"), start.command)

    // r rejected the first card, a accepted the second, u took back the third's rejection.
    let afterUndo = try XCTUnwrap(result.states["after-undo"])
    XCTAssertEqual(afterUndo.path, ordered[2], "undo returns to the card it undid")
    XCTAssertEqual(afterUndo.status, "undecided (lands)")
    XCTAssertEqual(
      afterUndo.acceptedCount,
      "1 accepted · 1 rejected · \(decidable.count - 2) undecided — "
        + "\(decidable.count - 1) of \(decidable.count) land")
    XCTAssertEqual(result.exports["after-undo"]?.accepted, decidable.filter { $0 != ordered[0] })

    let withoutGroup = decidable.filter { $0 != ordered[0] && !group.contains($0) }
    XCTAssertEqual(result.exports["group"]?.accepted, withoutGroup, "Shift+R rejects the group")
    let groupState = try XCTUnwrap(result.states["group"])
    XCTAssertEqual(groupState.path, grouped.path)
    XCTAssertTrue(
      groupState.groupNote?.contains("appears in \(group.count) images") == true,
      "\(String(describing: groupState.groupNote))")
    XCTAssertEqual(
      result.exports["group-undone"]?.accepted, decidable.filter { $0 != ordered[0] },
      "one undo takes back the whole group decision")
    XCTAssertEqual(
      result.exports["reloaded"]?.accepted, withoutGroup, "decisions survive a reload")
    XCTAssertEqual(result.states["reloaded"]?.status, "rejected", ordered[0])

    XCTAssertEqual(result.states["help"]?.helpShown, true, "? shows the keys")
    XCTAssertEqual(result.states["help-closed"]?.helpShown, false, "Escape closes them")

    let undecided = decidable.filter { $0 != ordered[0] && $0 != ordered[1] && !group.contains($0) }
    XCTAssertEqual(
      result.states["next-undecided"]?.path, ordered.first { undecided.contains($0) },
      "n jumps to the next undecided card")
    XCTAssertEqual(
      result.states["undecided-only"]?.visibleCount,
      "\(undecided.count) of \(report.cards.count) cards shown", "f shows the undecided cards")
    let repeats = Dictionary(grouping: report.cards.compactMap(\.group)) { $0 }.values
      .map { $0.count - 1 }.reduce(0, +)
    XCTAssertEqual(
      result.states["collapsed"]?.visibleCount,
      "\(report.cards.count - repeats) of \(report.cards.count) cards shown",
      "g shows one card per identical change")

    XCTAssertEqual(result.exports["reject-all"]?.accepted, [], "Reject all")
    XCTAssertEqual(result.exports["accept-all"]?.accepted, decidable, "Accept all")
    XCTAssertEqual(
      result.exports["clicked-reject"]?.accepted, decidable.filter { $0 != ordered[0] },
      "a card's reject button")
  }

  // MARK: A landed report

  func testLandedReport_saysLanded_aRejectionExportsTheRestore_whichPutsBackTheEarlierPixels()
    throws
  {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("my package")
    let folder = "Tests/ChartTests/__References__/Landed"
    let (updated, added, kept) =
      ("\(folder)/a-updated.png", "\(folder)/b-added.png", "\(folder)/c-kept.png")
    let earlier = try chart([30, 60, 45], scale: 2)
    // Encoded otherwise than the archive's images: the restore gives back these very bytes.
    let earlierPNG = try PNGEncoder(setting: .small).encode(earlier)
    try writeFile(earlierPNG, to: destination.appendingPathComponent(updated))
    try writeFile(
      try PNGEncoder().encode(try chart([30, 60, 45], scale: 2, accent: 1)),
      to: destination.appendingPathComponent(kept))
    var builder = ArchiveBuilder(generatedAt: day(1))
    let landedImage = try chart([30, 60, 45], scale: 2, seed: 1)
    try builder.add(updated, landedImage)
    try builder.add(added, try chart([30, 60, 45, 20], scale: 2))
    try builder.add(kept, try chart([30, 60, 45], scale: 2, accent: 1, seed: 2))
    let archive = root.appendingPathComponent("artifacts/run 1.zip")
    try builder.write(to: archive)
    let review = root.appendingPathComponent("review")
    let land = try MergeRefs.run(["--report", review.path, archive.path, destination.path])
    XCTAssertEqual(land.exitStatus, .success, land.all)
    XCTAssertTrue(land.output.contains("1 added, 2 updated"), land.output)
    let landedPNG = try FileSystem.read(destination.appendingPathComponent(updated))
    let report = Report(
      index: review.appendingPathComponent("index.html"), cards: try reviewData(review))

    let result = try drive(
      report,
      steps: [
        ["state": "start"], ["export": "initial"],
        // Reject the updated image and the added one, keep the third.
        ["press": ["r", "r", "a"]], ["export": "decided"], ["state": "decided"],
        ["press": ["Home"]], ["state": "first"], ["press": ["j"]], ["state": "second"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")
    let start = try XCTUnwrap(result.states["start"])
    XCTAssertTrue(
      start.changesState?.hasPrefix(
        "Landed: merge-refs wrote 1 added and 2 updated references into the package.") == true,
      "the first screen says the changes are written: \(start.changesState ?? "no line")")
    XCTAssertEqual(start.path, updated)
    XCTAssertEqual(start.status, "landed", "an undecided card of a landed report")
    XCTAssertEqual(
      start.acceptedCount, "0 kept · 0 to restore · 3 undecided — 3 of 3 stay",
      "before any decision nothing is kept by a decision: the undecided changes stay")
    XCTAssertEqual(start.downloadLabel, "Download the restore file")
    let initial = try XCTUnwrap(result.exports["initial"])
    XCTAssertEqual(initial.file, "reference-restore.txt")
    XCTAssertEqual(initial.lines, [], "nothing rejected, nothing to restore")

    XCTAssertEqual(result.states["decided"]?.status, "kept as landed")
    XCTAssertEqual(
      result.states["decided"]?.acceptedCount, "1 kept · 2 to restore · 0 undecided — 1 of 3 stay")
    XCTAssertEqual(result.states["decided"]?.announcement, "kept \(kept)")
    XCTAssertEqual(result.states["first"]?.status, "to restore")
    XCTAssertEqual(result.states["second"]?.path, added)
    XCTAssertEqual(
      result.states["second"]?.status, "to remove", "an added image has no earlier one")
    let decided = try XCTUnwrap(result.exports["decided"])
    XCTAssertEqual(
      decided.lines,
      ["\(updated)\t\(SHA256.hex(landedImage.pixels))\t\(SHA256.hex(earlier.pixels))"],
      "the rejected update, bound to the landed pixels and the earlier ones")
    let shown = try XCTUnwrap(result.states["decided"])
    let command = shown.command
    // As the page quotes a word: as it is when made of safe characters ("my package" is not).
    let quoted = { (word: String) -> String in
      let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=+@%,")
      return word.allSatisfy(safe.contains) ? word : "'\(word)'"
    }
    let earlierZip = quoted(review.appendingPathComponent("before.zip").path)
    XCTAssertTrue(
      command.hasSuffix(
        " --include-from reference-restore.txt \(earlierZip) \(quoted(destination.path))"), command)
    XCTAssertTrue(decided.text.contains("# \(command)\n"), decided.text)
    let remove = try XCTUnwrap(shown.removeCommand)
    XCTAssertEqual(remove, "rm -- \(quoted(destination.appendingPathComponent(added).path))")
    XCTAssertTrue(decided.text.contains("# \(remove)\n"), decided.text)

    // The exported file and command, saved and run where the file was downloaded.
    let downloads = root.appendingPathComponent("Downloads")
    try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
    try decided.text.write(
      to: downloads.appendingPathComponent(decided.file), atomically: true, encoding: .utf8)
    // First with the reference changed again since the report: refused, nothing written.
    let newer = try PNGEncoder().encode(try chart([30, 60, 45], scale: 2, seed: 7))
    try writeFile(newer, to: destination.appendingPathComponent(updated))
    let untouched = try snapshot(destination)
    let refused = try runProcess("/bin/sh", ["-c", command], in: downloads)
    XCTAssertEqual(refused.exitStatus, .refusedInput, refused.all)
    XCTAssertTrue(refused.output.contains("\(updated) changed since review"), refused.output)
    assertTreesEqual(try snapshot(destination), untouched, "a refused restore writes nothing")

    // As landed again: the restore puts back exactly the earlier file.
    try writeFile(landedPNG, to: destination.appendingPathComponent(updated))
    let restored = try runProcess("/bin/sh", ["-c", command], in: downloads)
    XCTAssertEqual(restored.exitStatus, .success, restored.all)
    XCTAssertTrue(restored.output.contains("0 added, 1 updated"), restored.output)
    XCTAssertFalse(restored.output.contains("incomplete"), "a successful restore: \(restored.all)")
    let back = try FileSystem.read(destination.appendingPathComponent(updated))
    XCTAssertEqual(try PNGDecoder().decode(back).pixels, earlier.pixels, "the earlier pixels")
    XCTAssertEqual(back, earlierPNG, "byte for byte")
    let removed = try runProcess("/bin/sh", ["-c", remove], in: downloads)
    XCTAssertEqual(removed.exitStatus, .success, removed.all)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: destination.appendingPathComponent(added).path))
    XCTAssertEqual(
      try PNGDecoder().decode(try FileSystem.read(destination.appendingPathComponent(kept)))
        .pixels,
      try chart([30, 60, 45], scale: 2, accent: 1, seed: 2).pixels, "the kept change stays")
  }

  // MARK: Accessibility

  func testHelp_movesTheFocusIntoItAndBack() throws {
    let report = try makeReport(cards: 20, extras: false)
    let result = try drive(
      report,
      steps: [
        ["state": "start"],
        ["press": ["?"]], ["state": "open"], ["press": ["Tab"]], ["state": "tabbed"],
        ["press": ["Escape"]], ["state": "closed"],
        ["click": "#help-button"], ["state": "clicked-open"],
        ["click": "#help-close"], ["state": "clicked-closed"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")
    XCTAssertEqual(result.states["start"]?.focus, "list", "the cards have the focus at first")
    let open = try XCTUnwrap(result.states["open"])
    XCTAssertTrue(open.helpShown)
    XCTAssertTrue(open.focusInHelp, "? moves the focus into the help: \(open.focus ?? "none")")
    XCTAssertEqual(result.states["tabbed"]?.focusInHelp, true, "Tab stays inside the open help")
    XCTAssertEqual(result.states["closed"]?.helpShown, false)
    XCTAssertEqual(result.states["closed"]?.focus, "list", "Escape returns the focus")
    XCTAssertEqual(result.states["clicked-open"]?.focusInHelp, true)
    XCTAssertEqual(
      result.states["clicked-closed"]?.focus, "help-button",
      "closing returns the focus to the button that opened the help")
  }

  func testLiveRegion_announcesDecisionsAndUndo() throws {
    let report = try makeReport(cards: 20, extras: false)
    let ordered = report.cards.map(\.path).sorted()
    let result = try drive(
      report,
      steps: [
        ["state": "start"],
        ["press": ["a"]], ["state": "accepted"], ["press": ["r"]], ["state": "rejected"],
        ["press": ["u"]], ["state": "undone"], ["click": "#reject-all"], ["state": "all"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")
    XCTAssertEqual(result.states["start"]?.announcement, "")
    XCTAssertEqual(result.states["start"]?.announcerLive, "polite")
    XCTAssertEqual(result.states["accepted"]?.announcement, "accepted \(ordered[0])")
    XCTAssertEqual(result.states["rejected"]?.announcement, "rejected \(ordered[1])")
    XCTAssertEqual(
      result.states["undone"]?.announcement, "undone: \(ordered[1]) is undecided")
    XCTAssertEqual(
      result.states["all"]?.announcement, "rejected \(report.cards.count) images",
      "Reject all: every card")
  }

  func testShortcutsOff_singleKeysDoNothing_buttonsStillDecide_rememberedAcrossReloads() throws {
    let report = try makeReport(cards: 20, extras: false)
    let ordered = report.cards.map(\.path).sorted()
    let result = try drive(
      report,
      steps: [
        ["export": "initial"], ["click": "#shortcuts-toggle"], ["state": "off"],
        ["press": ["a", "r", "x", "Shift+R", "Shift+A", "j", "?", "f", "g"]], ["state": "keys"],
        ["export": "keys"],
        ["press": ["ArrowDown"]], ["state": "arrow"],
        ["click": ".card.current .decide .reject"], ["state": "button"], ["export": "button"],
        ["reload": true], ["press": ["k", "r"]], ["state": "reloaded"], ["export": "reloaded"],
        ["click": "#shortcuts-toggle"], ["press": ["r"]], ["state": "on"], ["export": "on"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")
    let initial = try XCTUnwrap(result.exports["initial"]).accepted
    XCTAssertEqual(initial, ordered, "every card is added or updated, so decidable")
    XCTAssertEqual(result.states["off"]?.shortcuts, false)
    let keys = try XCTUnwrap(result.states["keys"])
    XCTAssertEqual(keys.path, ordered[0], "j did not move")
    XCTAssertEqual(keys.status, "undecided (lands)", "a and r did not decide")
    XCTAssertFalse(keys.helpShown, "? did not open the help")
    XCTAssertEqual(keys.visibleCount, "\(ordered.count) of \(ordered.count) cards shown", "f, g")
    XCTAssertEqual(keys.announcement, "")
    XCTAssertEqual(result.exports["keys"]?.accepted, initial, "nothing was decided")
    XCTAssertEqual(result.states["arrow"]?.path, ordered[1], "the arrows still move")
    XCTAssertEqual(result.states["button"]?.status, "rejected", "the buttons still decide")
    XCTAssertEqual(result.states["button"]?.announcement, "rejected \(ordered[1])")
    let rejected = initial.filter { $0 != ordered[1] }
    XCTAssertEqual(result.exports["button"]?.accepted, rejected)
    XCTAssertEqual(result.states["reloaded"]?.shortcuts, false, "the switch is remembered")
    XCTAssertEqual(result.exports["reloaded"]?.accepted, rejected, "k and r did nothing")
    XCTAssertEqual(result.states["on"]?.shortcuts, true)
    XCTAssertEqual(
      result.exports["on"]?.accepted, initial.filter { $0 != ordered[0] && $0 != ordered[1] },
      "on again, r rejects the current card")
  }

  // MARK: Comparison modes

  func testComparisonModes_screenshots_showTheirPanesNotBlankAndDifferent() throws {
    let report = try makeReport(cards: 40)
    let updated = try XCTUnwrap(
      report.cards.first { $0.outcome == "updated" && $0.group != nil },
      "the report needs an updated card")
    let result = try drive(
      report,
      steps: [
        ["press": ["/"]], ["type": updated.path], ["press": ["Enter"]], ["modes": "modes"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")
    let shots = try XCTUnwrap(result.modes["modes"])
    XCTAssertEqual(shots.map(\.mode), ["side", "swipe", "onion", "flicker", "overlay", "boxes"])
    let expectedLabels = [
      ["before", "after"], ["swipe"], ["onion skin"], ["flicker"], ["difference"],
      ["changed region"],
    ]
    var crops: [String: [UInt8]] = [:]
    for (shot, labels) in zip(shots, expectedLabels) {
      XCTAssertEqual(shot.panes.count, labels.count, "\(shot.mode): panes \(shot.panes)")
      for (pane, label) in zip(shot.panes, labels) {
        XCTAssertTrue(pane.label.contains(label), "\(shot.mode): pane label \(pane.label)")
      }
      let image = try screenshot(shot.screenshots[0])
      for pane in shot.panes {
        XCTAssertGreaterThan(
          share(of: image, in: pane) { !$0.near(Pixel.paneBackground, 6) }, 0.05,
          "\(shot.mode): the pane \(pane.label) is blank")
        XCTAssertGreaterThanOrEqual(
          distinctColours(image, in: pane), 3, "\(shot.mode): the pane \(pane.label) is flat")
      }
      crops[shot.mode] = crop(image, to: union(shot.panes))
    }
    // Each mode draws something else in the same place.
    for (first, second) in [
      ("side", "swipe"), ("swipe", "onion"), ("onion", "overlay"), ("overlay", "boxes"),
      ("side", "boxes"),
    ] {
      XCTAssertNotEqual(crops[first], crops[second], "\(first) and \(second) look the same")
    }
    let swipe = try screenshot(shots[1].screenshots[0])
    XCTAssertGreaterThan(
      count(in: swipe, shots[1].panes[0]) { $0.near(Pixel(250, 176, 5), 30) }, 100,
      "swipe shows its dividing line")
    let boxes = try screenshot(shots[5].screenshots[0])
    // Each box in its kind's colour (review.css): changed, moved, noise, recoloured.
    let strokes = [
      Pixel(240, 62, 62), Pixel(12, 166, 120), Pixel(134, 142, 150), Pixel(174, 62, 201),
    ]
    XCTAssertGreaterThan(
      count(in: boxes, shots[5].panes[0]) { pixel in strokes.contains { pixel.near($0, 30) } }, 20,
      "the changed regions are boxed")
    let flicker = shots[3]
    XCTAssertEqual(flicker.screenshots.count, 2)
    XCTAssertNotEqual(
      crop(try screenshot(flicker.screenshots[0]), to: flicker.panes[0]),
      crop(try screenshot(flicker.screenshots[1]), to: flicker.panes[0]),
      "flicker alternates before and after")
  }

  // MARK: Zoom, sizes, conflicts and orphans

  func testZoomAndPan_moveBothPanesTogether_downToAPixelGrid_andASizeChangeNamesBothSizes()
    throws
  {
    let report = try makeReport(cards: 20)
    let resized = "Tests/ChartTests/__References__/Suite5/chart-12.png"
    let result = try drive(
      report,
      steps: [
        ["press": ["/"]], ["type": resized], ["press": ["Enter", "1"]], ["state": "fit"],
        ["press": ["+", "+", "+", "+", "+", "+"]], ["state": "zoomed"], ["screenshot": "zoomed"],
        ["drag": [-120, -40]], ["state": "panned"],
        ["press": ["0"]], ["state": "fit-again"],
        ["press": ["/"]], ["type": "Suite9/"], ["press": ["Enter"]], ["cards": "extras"],
        ["state": "extras"],
        ["screenshot": "conflict-and-orphan"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")
    let fit = try XCTUnwrap(result.states["fit"])
    XCTAssertEqual(fit.path, resized)
    XCTAssertEqual(fit.sizeNote, "size changed: before 304×200, after 348×200")
    XCTAssertEqual(fit.paneLabels, ["before 304×200", "after 348×200"])
    XCTAssertTrue(fit.zoomLevel.contains("(fit)"), fit.zoomLevel)
    XCTAssertEqual(fit.gridShown, [false, false])

    for name in ["zoomed", "panned"] {
      let state = try XCTUnwrap(result.states[name])
      XCTAssertEqual(state.stageTransforms.count, 2, name)
      XCTAssertEqual(
        Set(state.stageTransforms).count, 1, "\(name): both panes show the same view")
      XCTAssertEqual(state.gridShown, [true, true], "\(name): the pixel grid shows")
      XCTAssertTrue(state.zoomLevel.contains("pixel grid"), state.zoomLevel)
    }
    XCTAssertNotEqual(
      result.states["zoomed"]?.stageTransforms, result.states["panned"]?.stageTransforms,
      "dragging pans")
    XCTAssertNotEqual(fit.stageTransforms, result.states["zoomed"]?.stageTransforms)
    XCTAssertEqual(result.states["fit-again"]?.stageTransforms, fit.stageTransforms, "0 fits")

    let extras = try XCTUnwrap(result.cardsSeen["extras"])
    XCTAssertEqual(extras.map(\.path), [Self.disputed, Self.orphan])
    guard extras.count == 2 else { return }
    XCTAssertEqual(
      result.states["extras"]?.path, Self.disputed, "a new filter starts at its first card")
    let conflict = extras[0]
    XCTAssertEqual(conflict.outcome, "conflict")
    XCTAssertFalse(conflict.decidable, "a conflict is shown, not decided")
    XCTAssertEqual(conflict.paneLabels.count, 2, "one pane per disagreeing run")
    XCTAssertTrue(conflict.paneLabels.contains { $0.contains("other-host") }, "\(conflict)")
    let orphan = extras[1]
    XCTAssertEqual(orphan.outcome, "orphan")
    XCTAssertFalse(orphan.decidable)
    XCTAssertEqual(orphan.paneLabels, ["current (no run produced it) 304×200"])
  }

  func testSingleFileReport_theSamePageShowsItsInlinedImages() throws {
    let report = try makeReport(cards: 20, singleFile: true)
    let ordered = report.cards.map(\.path).sorted()
    let result = try drive(report, steps: [["state": "start"], ["export": "initial"]])
    XCTAssertEqual(result.errors, [], "the page logged errors")
    let start = try XCTUnwrap(result.states["start"])
    XCTAssertEqual(start.path, ordered[0])
    XCTAssertEqual(start.imagesShown, 2, "before and after, from data: URIs")
    XCTAssertEqual(
      result.exports["initial"]?.accepted,
      report.cards.filter { ["added", "updated"].contains($0.outcome) }.map(\.path).sorted())
  }

  // MARK: Scale

  func testTenThousandCards_firstScreenRendersWithAFewCardsInTheDocument() throws {
    let report = try makeReport(cards: 10_000, tiny: true, extras: false)
    let ordered = report.cards.map(\.path).sorted()
    let result = try drive(
      report,
      steps: [
        ["state": "start"], ["press": ["End"]], ["state": "end"],
        ["press": ["Home", "j", "j", "a"]], ["state": "decided"],
        ["bench": "j", "count": 200], ["state": "after-200"], ["bench": "f", "count": 8],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")
    XCTAssertEqual(result.cards, 10_000)
    let start = try XCTUnwrap(result.states["start"])
    XCTAssertEqual(start.path, ordered[0])
    XCTAssertEqual(start.visibleCount, "10000 of 10000 cards shown")
    XCTAssertLessThanOrEqual(start.cardsInDocument, 8, "only the cards near the viewport exist")
    XCTAssertLessThanOrEqual(start.imagesInDocument, 24, "images only for those cards")
    XCTAssertEqual(result.states["end"]?.path, ordered[ordered.count - 1], "End reaches the last")
    XCTAssertLessThanOrEqual(result.states["end"]?.cardsInDocument ?? 99, 8)
    XCTAssertEqual(result.states["decided"]?.path, ordered[3], "a moves on after accepting")
    XCTAssertEqual(result.states["after-200"]?.path, ordered[203], "200 presses of j, 200 cards")
    // A figure for the report, not a pass/fail bound: the machine's load decides it.
    print(
      "review page, 10,000 cards: first screen \(Int(result.firstScreenMilliseconds)) ms after "
        + "navigation, ready \(result.readyWallSeconds) s, images \(result.imagesWallSeconds) s; "
        + "per key: j \(result.keyMilliseconds["j"] ?? -1) ms, f (refilter) "
        + "\(result.keyMilliseconds["f"] ?? -1) ms")
  }

  // MARK: Reports

  struct ReportCard: Decodable {
    var path: String
    var outcome: String
    var group: String? = nil
    var beforePixels: String? = nil
    var afterPixels: String? = nil
  }

  struct Report {
    var index: URL
    var cards: [ReportCard]
  }

  private static let orphan = "Tests/ChartTests/__References__/Suite9/orphan.png"
  private static let disputed = "Tests/ChartTests/__References__/Suite9/disputed.png"
  private static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// A real report: `merge-refs --dry-run --report` on a package holding the before images and
  /// an archive of the after images. Of every 20 cards, 6 are one identical change (a group), 6
  /// are changes of their own, 1 changes size and 7 are added; with `extras`, one orphan and
  /// one conflict follow. Images are `scale` × small drawn bar charts.
  private func makeReport(
    cards: Int, scale: Int = 2, tiny: Bool = false, extras: Bool = true, singleFile: Bool = false
  ) throws -> Report {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    var builder = ArchiveBuilder(generatedAt: day(1))
    var expected: [ReportCard] = []
    let heights = [30, 60, 45, 75, 20, 55]
    // Tiny noise images when only the number of cards matters: drawing 10,000 charts is slow.
    let draw = { (heights: [Int], accent: Int?, seed: Int?) throws -> RGBAImage in
      tiny
        ? try noiseImage(seed: seed ?? accent ?? 0, width: 8 + heights.count, height: 6)
        : try self.chart(heights, scale: scale, accent: accent, seed: seed)
    }
    let before = try draw(heights, nil, nil)
    let shared = try draw(heights, 2, nil)
    let beforePNG = try PNGEncoder().encode(before)
    for index in 0..<cards {
      let path = "Tests/ChartTests/__References__/Suite\(index % 7)/chart-\(index).png"
      let kind = index % 20
      if kind >= 13 {
        try builder.add(path, try draw(heights.reversed(), nil, index + 1000))
        expected.append(ReportCard(path: path, outcome: "added"))
        continue
      }
      try writeFile(beforePNG, to: destination.appendingPathComponent(path))
      let after =
        kind < 6
        ? shared
        : kind == 12
          ? try draw(heights + [40], nil, nil)
          : try draw(heights, nil, index + 100)
      try builder.add(path, after)
      expected.append(ReportCard(path: path, outcome: "updated"))
    }
    var archives = [root.appendingPathComponent("artifacts/run 1.zip")]
    if extras {
      // An orphan (a reference no run wrote) and a conflict (two runs disagree), in a folder
      // that sorts after the others.
      try writeFile(beforePNG, to: destination.appendingPathComponent(Self.orphan))
      try builder.add(Self.disputed, try draw(heights, 4, nil))
      var second = ArchiveBuilder(host: "other-host", generatedAt: day(2))
      try second.add(Self.disputed, try draw(heights, 5, nil))
      archives.append(root.appendingPathComponent("artifacts/run 2.zip"))
      try second.write(to: archives[1])
      expected += [
        ReportCard(path: Self.orphan, outcome: "orphan"),
        ReportCard(path: Self.disputed, outcome: "conflict"),
      ]
    }
    try builder.write(to: archives[0])
    let folder = root.appendingPathComponent(singleFile ? "review.html" : "review")
    let run = try MergeRefs.run(
      ["--dry-run", "--report", folder.path] + archives.map(\.path) + [destination.path])
    XCTAssertEqual(run.status, extras ? 2 : 0, "exit 2 for the conflict\n\(run.all)")
    if singleFile {
      XCTAssertFalse(
        try String(contentsOf: folder, encoding: .utf8).contains("src=\"review"),
        "the single file loads nothing beside it")
      return Report(index: folder, cards: expected)
    }
    let report = Report(
      index: folder.appendingPathComponent("index.html"),
      cards: try reviewData(folder))
    XCTAssertEqual(
      report.cards.map { "\($0.path) \($0.outcome)" }.sorted(),
      expected.map { "\($0.path) \($0.outcome)" }.sorted(), "the report holds every change")
    return report
  }

  /// A bar chart: white, grey axis, blue bars of `heights` (bar `accent` orange); `seed` moves
  /// one bar, so each seed is its own change.
  private func chart(_ heights: [Int], scale: Int, accent: Int? = nil, seed: Int? = nil) throws
    -> RGBAImage
  {
    let width = (20 + heights.count * 22) * scale
    let height = 100 * scale
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    func fill(_ x: Int, _ y: Int, _ w: Int, _ h: Int, _ colour: (UInt8, UInt8, UInt8)) {
      for row in max(0, y)..<min(height, y + h) {
        for column in max(0, x)..<min(width, x + w) {
          let offset = (row * width + column) * 4
          (pixels[offset], pixels[offset + 1], pixels[offset + 2]) = colour
        }
      }
    }
    fill(5 * scale, 90 * scale, width - 10 * scale, scale, (73, 80, 87))
    for (index, bar) in heights.enumerated() {
      let moved = seed.map { index == $0 % heights.count ? bar + 5 + $0 % 11 : bar } ?? bar
      let colour: (UInt8, UInt8, UInt8) = index == accent ? (240, 140, 0) : (28, 126, 214)
      fill((12 + index * 22) * scale, (90 - moved) * scale, 14 * scale, moved * scale, colour)
    }
    return try RGBAImage(width: width, height: height, pixels: pixels)
  }

  /// The cards of a report folder's review data.
  func reviewData(_ report: URL) throws -> [ReportCard] {
    struct Data: Decodable { var cards: [ReportCard] }
    let script = try ReviewDataScript.text(inReport: report)
    return try JSONDecoder().decode(Data.self, from: ReviewDataScript.json(of: script)).cards
  }

  // MARK: The driver

  struct DriverResult: Decodable {
    var exports: [String: Export]
    var states: [String: PageState]
    var modes: [String: [ModeShot]]
    var cardsSeen: [String: [SeenCard]]
    var keyMilliseconds: [String: Double]
    var errors: [String]
    var cards: Int
    var firstScreenMilliseconds: Double
    var readyWallSeconds: Double
    var imagesWallSeconds: Double
  }

  struct Export: Decodable {
    var file: String
    var text: String
    /// The lines that let paths land: every line but the `#` comments.
    var lines: [String] {
      text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }
    /// The paths the file lets land: each line's first field.
    var accepted: [String] {
      lines.map { String($0.split(separator: "\t", omittingEmptySubsequences: false)[0]) }
    }
  }

  struct PageState: Decodable {
    var path: String?
    var status: String?
    var groupNote: String?
    var acceptedCount: String
    var visibleCount: String
    var cardsInDocument: Int
    var imagesInDocument: Int
    var imagesShown: Int
    var helpShown: Bool
    /// The focused element's id (its tag name when it has none).
    var focus: String?
    var focusInHelp: Bool
    /// The live region's text, trimmed.
    var announcement: String
    var announcerLive: String?
    var shortcuts: Bool
    var command: String
    /// The rm line of a landed report's rejected added images.
    var removeCommand: String?
    /// The first screen's line on whether the changes are written.
    var changesState: String?
    /// The header's summary line of counts.
    var summary: String
    /// The problems and warnings listed at the top.
    var problems: [String]
    /// The current card's notes (size change, group, outcome) as one text.
    var cardNote: String?
    /// The current card's meta lines (source, test, run).
    var cardMeta: [String]
    var downloadLabel: String?
    /// The heading of the variant group the current card starts, if it starts one.
    var variantHeading: String?
    /// What the current card says it compares with (a report with variants).
    var comparedWith: String?
    /// The header's variant group buttons; empty in a report without variants.
    var variantGroups: [String]
    var sizeNote: String?
    var paneLabels: [String]
    var stageTransforms: [String]
    var gridShown: [Bool]
    var zoomLevel: String
    /// The current card's box labels (in the changed-regions mode) and their boxes' kinds.
    var kindLabels: [String]
    var kindBoxes: [String]
    /// The current card's line of kinds, and its change group's note.
    var kindsNote: String?
    var changeGroupNote: String?
    /// The kind filter's options.
    var kindOptions: [String]
  }

  struct SeenCard: Decodable {
    var path: String
    var outcome: String
    var decidable: Bool
    var paneLabels: [String]
    var note: String?
  }

  struct ModeShot: Decodable {
    var mode: String
    var screenshots: [String]
    var panes: [Pane]
  }

  struct Pane: Decodable, CustomStringConvertible {
    var label: String
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    var description: String { "\(label) at \(x),\(y) \(width)×\(height)" }
  }

  /// Runs the driver on `report` with `steps` and decodes what it printed.
  /// REVIEW_PAGE_SHOTS=FOLDER keeps the screenshots there, to look at them.
  func drive(_ report: Report, steps: [[String: Any]]) throws -> DriverResult {
    try PageTools.drive(
      report.index, steps: try PageTools.steps(steps), checkout: Self.packageRoot,
      work: try makeTemporaryFolder(self),
      shots: ProcessInfo.processInfo.environment["REVIEW_PAGE_SHOTS"].map {
        URL(fileURLWithPath: $0)
      })
  }

  // MARK: Screenshots

  struct Pixel: Equatable {
    var red: Int
    var green: Int
    var blue: Int
    init(_ red: Int, _ green: Int, _ blue: Int) {
      (self.red, self.green, self.blue) = (red, green, blue)
    }
    /// The grey behind an image in its pane (review.css `.viewport`).
    static let paneBackground = Pixel(233, 236, 239)
    func near(_ other: Pixel, _ tolerance: Int) -> Bool {
      abs(red - other.red) <= tolerance && abs(green - other.green) <= tolerance
        && abs(blue - other.blue) <= tolerance
    }
  }

  private func screenshot(_ path: String) throws -> RGBAImage {
    try PNGDecoder().decode(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  private func pixels(_ image: RGBAImage, in pane: Pane) -> [Pixel] {
    var result: [Pixel] = []
    for y in max(0, pane.y)..<min(image.height, pane.y + pane.height) {
      for x in max(0, pane.x)..<min(image.width, pane.x + pane.width) {
        let offset = (y * image.width + x) * 4
        result.append(
          Pixel(
            Int(image.pixels[offset]), Int(image.pixels[offset + 1]),
            Int(image.pixels[offset + 2])))
      }
    }
    return result
  }

  private func count(in image: RGBAImage, _ pane: Pane, where test: (Pixel) -> Bool) -> Int {
    pixels(image, in: pane).filter(test).count
  }

  private func share(of image: RGBAImage, in pane: Pane, where test: (Pixel) -> Bool) -> Double {
    let all = pixels(image, in: pane)
    return all.isEmpty ? 0 : Double(all.filter(test).count) / Double(all.count)
  }

  private func distinctColours(_ image: RGBAImage, in pane: Pane) -> Int {
    Set(pixels(image, in: pane).map { $0.red << 16 | $0.green << 8 | $0.blue }).count
  }

  private func crop(_ image: RGBAImage, to pane: Pane) -> [UInt8] {
    pixels(image, in: pane).flatMap { [UInt8($0.red), UInt8($0.green), UInt8($0.blue)] }
  }

  private func union(_ panes: [Pane]) -> Pane {
    let left = panes.map(\.x).min() ?? 0
    let top = panes.map(\.y).min() ?? 0
    let right = panes.map { $0.x + $0.width }.max() ?? 0
    let bottom = panes.map { $0.y + $0.height }.max() ?? 0
    return Pane(label: "panes", x: left, y: top, width: right - left, height: bottom - top)
  }
}
