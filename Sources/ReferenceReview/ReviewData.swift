import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge

/// Writes `review-data.js`: one statement, `window.REFERENCE_REVIEW = {...};`, streamed: each
/// card as it is made, then the report's facts, which say what the merge did after the cards. The one owner of the data's format: the
/// page's `types.d.ts` is type-checked against a sample of what this writes (`Scripts/lint-page`,
/// kept the shape of a real report by `ReviewReportTests.testDataSample_...`).
struct ReviewData {
  /// The format's version, which the page checks before it reads anything else.
  static let version = 1

  /// The facts of the report that come before the cards.
  struct Header {
    var id: String
    var destination: String
    var generatedAt: Date
    /// Whether the changes are written (`landed`) or not (`pending`, `stopped`, `failed`), as
    /// the merge left the package.
    var changes: ReportRequest.Changes
    /// On a report landed in part, the paths a failed write did not reach.
    var notWritten: [String]
    /// The file the page exports: the accepted changes to land, or on a landed report the
    /// rejected ones to restore.
    var decisionFile: String
    /// The command that runs the exported file: the land command, or on a landed report the
    /// restore command (`--include-from` the file, the report's earlier references, the
    /// destination).
    var command: [String]
    /// The destination as the command names it, for the page's `rm` lines of added images.
    var commandDestination: String
    var counts: [MergePlan.Outcome: Int]
    var skipped: Int
    var sources: [SourceInventory]
    var problems: [String]
    var warnings: [String]
    /// The tests the runs recorded as skipped.
    var skippedTests: [String]
  }

  /// How an image file appears in `src`: its relative path in a folder report, a data URI
  /// in a single file.
  enum ImageSource {
    case file
    case dataURI(images: URL)
  }

  private var json: JSONStream
  private let output: BufferedOutput
  private let imageSource: ImageSource

  init(_ output: BufferedOutput, imageSource: ImageSource) {
    self.output = output
    self.imageSource = imageSource
    // Compact: the browser parses it, and ten thousand cards stay a few megabytes.
    json = JSONStream(output, indented: false)
  }

  /// Writes the statement's start and the version, and opens the cards.
  mutating func begin() {
    output.write("window.REFERENCE_REVIEW = ")
    json.beginObject()
    json.member("version", Self.version)
    json.key("cards")
    json.beginArray()
  }

  /// Closes the cards, writes every other field (after the cards: they say what the merge did
  /// once the cards were written), and closes the object and the statement.
  mutating func end(_ header: Header) {
    json.endArray()
    json.member("id", header.id)
    json.member("destination", header.destination)
    json.member("generatedAt", ISO8601DateFormatter().string(from: header.generatedAt))
    json.member("changes", header.changes.rawValue)
    json.member("notWritten", strings: header.notWritten)
    json.member("decisionFile", header.decisionFile)
    json.member("command", strings: header.command)
    json.member("commandDestination", header.commandDestination)
    json.key("counts")
    json.beginObject()
    for outcome in MergePlan.Outcome.allCases {
      json.member(outcome.rawValue, header.counts[outcome] ?? 0)
    }
    json.member("skipped", header.skipped)
    json.endObject()
    json.key("sources")
    json.beginArray()
    for inventory in header.sources {
      json.beginObject()
      json.member("name", inventory.source.description)
      json.member("images", inventory.imageCount)
      json.member("worker", inventory.workerSummary)
      json.key("incomplete")
      json.string(inventory.incompleteReason)
      json.endObject()
    }
    json.endArray()
    json.member("problems", strings: header.problems)
    json.member("warnings", strings: header.warnings)
    json.member("skippedTests", strings: header.skippedTests)
    json.endObject()
    output.write(";\n")
  }

  /// Writes one card.
  /// - Throws: `ReviewError.io` when a single file's image cannot be read back.
  mutating func write(_ card: ReviewCard) throws(ReviewError) {
    json.beginObject()
    json.member("id", card.id)
    json.member("path", card.path)
    json.member("outcome", card.outcome.rawValue)
    json.key("variant")
    json.string(card.variant)
    json.key("comparedWith")
    write(card.comparedWith)
    json.key("fallback")
    if let fallback = card.fallback {
      json.beginObject()
      json.member("path", fallback.file.path)
      json.key("variant")
      json.string(fallback.file.variant)
      json.key("image")
      try write(fallback.image)
      json.endObject()
    } else {
      json.null()
    }
    json.key("group")
    json.string(card.group)
    json.key("beforePixels")
    json.string(card.beforePixels)
    json.key("afterPixels")
    json.string(card.afterPixels)
    for (name, image) in [
      ("before", card.before), ("after", card.after), ("difference", card.difference),
    ] {
      json.key(name)
      try write(image)
    }
    json.key("changedPixels")
    json.number(card.comparison?.changedPixels)
    json.key("totalPixels")
    json.number(card.comparison?.totalPixels)
    json.key("maxChannelDifference")
    json.number(card.comparison?.maxChannelDifference)
    json.key("regions")
    writeRegions(card.comparison?.regions ?? [])
    json.key("regionKinds")
    writeKinds(card.comparison?.kinds ?? [])
    json.key("changeGroup")
    json.string(card.comparison?.fingerprint?.key)
    json.key("changeGroupLabel")
    json.string(card.comparison?.fingerprint?.label)
    json.member("meta", strings: card.meta)
    json.key("rivals")
    json.beginArray()
    for rival in card.rivals {
      json.beginObject()
      json.member("label", rival.label)
      json.key("image")
      try write(rival.image)
      json.endObject()
    }
    json.endArray()
    json.endObject()
  }

  private mutating func write(_ image: ReviewCard.Image?) throws(ReviewError) {
    guard let image else {
      json.null()
      return
    }
    json.beginObject()
    json.key("src")
    switch imageSource {
    case .file:
      json.string("images/" + image.file)
    case .dataURI(let folder):
      let bytes = try ReviewError.catching { () throws(ArchiveError) in
        try FileSystem.read(folder.appendingPathComponent(image.file))
      }
      json.rawString { output in
        output.write("data:image/png;base64,")
        output.writeBase64(bytes)
      }
    }
    json.member("width", image.width)
    json.member("height", image.height)
    json.endObject()
  }

  /// The file a card compares with: `{"path", "variant", "fallback"}`, or null.
  private mutating func write(_ compared: ReviewCard.ComparedFile?) {
    guard let compared else {
      json.null()
      return
    }
    json.beginObject()
    json.member("path", compared.path)
    json.key("variant")
    json.string(compared.variant)
    json.key("fallback")
    json.bool(compared.isFallback)
    json.endObject()
  }

  /// Each region's kind, one per box: `{"kind", "label", "box", "changedPixels"}`, where
  /// `box` is tightened to the changed pixels (`[x, y, width, height]`) and the parameters are
  /// in the label ("moved by (2, 1)").
  private mutating func writeKinds(_ regions: [ChangedRegion]) {
    json.beginArray()
    for region in regions {
      json.beginObject()
      json.member("kind", region.kind.name)
      json.member("label", region.kind.description)
      json.key("box")
      json.beginArray()
      for value in [
        region.box.minX, region.box.minY, region.box.maxX - region.box.minX + 1,
        region.box.maxY - region.box.minY + 1,
      ] {
        json.number(value)
      }
      json.endArray()
      json.member("changedPixels", region.changedPixelCount)
      json.endObject()
    }
    json.endArray()
  }

  /// Regions one per line, each box on it: `[x, y, width, height]`.
  private mutating func writeRegions(_ regions: [[Int]]) {
    json.beginArray()
    for box in regions {
      json.beginArray()
      for value in box { json.number(value) }
      json.endArray()
    }
    json.endArray()
  }
}
