import Foundation

/// The summary as `--json` prints it: one object whose fields are a contract.
extension MergeSummary {
  /// Indented JSON with sorted keys; nil values are left out.
  public func json() -> String {
    let output = BufferedOutput()
    writeJSON(to: output)
    try? output.finish()
    return String(decoding: output.collected, as: UTF8.self)
  }

  /// Writes `json()` and a new line to an open file descriptor (1 for standard output) as it
  /// is made, change by change, never holding the whole text.
  /// - Parameter descriptor: The descriptor; it stays open.
  /// - Returns: Whether every write succeeded.
  @discardableResult
  public func writeJSON(toDescriptor descriptor: Int32) -> Bool {
    let output = BufferedOutput(descriptor: descriptor, name: "standard output")
    writeJSON(to: output)
    output.write("\n")
    return (try? output.finish()) != nil
  }

  /// The members in sorted order, as `JSONEncoder`'s `.sortedKeys` would write them.
  func writeJSON(to output: BufferedOutput) {
    var json = JSONStream(output)
    json.beginObject()
    writeAbandonedFolders(to: &json)
    json.member("added", added)
    json.key("applied")
    json.bool(applied)
    json.key("changeGroups")
    writeChangeGroups(to: &json)
    json.key("changes")
    write(changes, to: &json)
    if let compacted {
      json.key("compacted")
      json.beginObject()
      json.member("bytesAfter", compacted.bytesAfter)
      json.member("bytesBefore", compacted.bytesBefore)
      json.member("compacted", compacted.compacted)
      json.member("files", compacted.files)
      json.endObject()
    }
    json.member("conflicts", conflicts)
    json.member("destination", destination)
    json.key("dryRun")
    json.bool(dryRun)
    json.member("errors", strings: errors)
    json.member("keptForSkippedTests", strings: keptForSkippedTests)
    json.member("notWritten", notWritten)
    json.key("orphanSearchDone")
    json.bool(orphanSearchDone)
    if let orphanSearchRefusal { json.member("orphanSearchRefusal", orphanSearchRefusal) }
    json.member("orphans", orphans)
    if let pruneCommand { json.member("pruneCommand", pruneCommand) }
    json.member("pruned", pruned)
    if let redundant { json.member("redundant", redundant) }
    if let matchingFallback { json.member("matchingFallback", matchingFallback) }
    json.member("refused", refused)
    if let store {
      json.key("store")
      json.beginObject()
      json.member("name", store.name)
      json.member("uploaded", store.uploaded)
      json.endObject()
    }
    if let report { json.member("report", report) }
    json.key("skipped")
    write(skipped, to: &json)
    json.member("skippedTests", strings: skippedTests)
    json.member("failedTests", strings: failedTests)
    writeSuperseded(to: &json)
    writeSources(to: &json)
    json.member("unchanged", unchanged)
    json.member("unstable", unstable)
    json.member("updated", updated)
    if let variants { write(variants, to: &json) }
    json.member("warnings", strings: warnings)
    json.endObject()
  }

  /// `changeGroups`: each group's key, label and every path.
  private func writeChangeGroups(to json: inout JSONStream) {
    json.beginArray()
    for group in changeGroups {
      json.beginObject()
      json.member("key", group.key)
      json.member("label", group.label)
      json.member("paths", strings: group.paths)
      json.endObject()
    }
    json.endArray()
  }

  private func writeSuperseded(to json: inout JSONStream) {
    json.key("superseded")
    json.beginArray()
    for item in superseded {
      json.beginObject()
      json.member("laterRunStart", item.laterRunStart)
      json.key("laterRunRenderedAgain")
      json.bool(item.laterRunRenderedAgain)
      json.member("path", item.path)
      json.member("source", item.source)
      if let test = item.test { json.member("test", test) }
      json.endObject()
    }
    json.endArray()
  }

  private func writeSources(to json: inout JSONStream) {
    json.key("sources")
    json.beginArray()
    for source in sources {
      json.beginObject()
      json.key("complete")
      json.bool(source.complete)
      if source.earlierReferences == true {
        json.key("earlierReferences")
        json.bool(true)
      }
      json.member("images", source.images)
      if let reason = source.incompleteReason { json.member("incompleteReason", reason) }
      json.member("name", source.name)
      if let worker = source.worker { json.member("worker", worker) }
      json.endObject()
    }
    json.endArray()
  }

  /// `variants`: each variant's counts, the base first, as the text's "by variant" line.
  private func write(_ counts: [VariantCounts], to json: inout JSONStream) {
    json.key("variants")
    json.beginArray()
    for variant in counts {
      json.beginObject()
      json.member("added", variant.added)
      json.member("conflicts", variant.conflicts)
      json.member("matchingFallback", variant.matchingFallback)
      json.member("orphans", variant.orphans)
      json.member("redundant", variant.redundant)
      json.member("unchanged", variant.unchanged)
      json.member("unstable", variant.unstable)
      json.member("updated", variant.updated)
      json.member("variant", variant.variant)
      json.endObject()
    }
    json.endArray()
  }

  private func write(_ changes: some Sequence<Change>, to json: inout JSONStream) {
    json.beginArray()
    for change in changes {
      json.beginObject()
      if let pixels = change.differingPixels { json.member("differingPixels", pixels) }
      if let start = change.earlierRunStart { json.member("earlierRunStart", start) }
      if let failure = change.failedComparison { write(failure, to: &json) }
      if let kinds = change.kinds { write(kinds, to: &json) }
      if change.notWritten == true {
        json.key("notWritten")
        json.bool(true)
      }
      json.member("outcome", change.outcome.rawValue)
      json.member("path", change.path)
      json.key("resolvedByNewest")
      json.bool(change.resolvedByNewest)
      json.member("sources", strings: change.sources)
      if let variant = change.variant { json.member("variant", variant) }
      json.member("workers", strings: change.workers)
      json.endObject()
    }
    json.endArray()
  }

  /// `kinds`: each region's kind, label, box and changed pixels.
  private func write(_ kinds: [RegionKind], to json: inout JSONStream) {
    json.key("kinds")
    json.beginArray()
    for region in kinds {
      json.beginObject()
      json.key("box")
      json.beginArray()
      for value in region.box { json.number(value) }
      json.endArray()
      json.member("changedPixels", region.changedPixels)
      json.member("kind", region.kind)
      json.member("label", region.label)
      json.endObject()
    }
    json.endArray()
  }

  private func write(_ failure: SourceInventory.FailedComparison, to json: inout JSONStream) {
    let record = failure.record
    json.key("failedComparison")
    json.beginObject()
    json.member("comparison", record.comparison)
    if let pixels = record.differingPixels { json.member("differingPixels", pixels) }
    json.member("file", record.file)
    json.member("line", record.line)
    if let digest = record.referencePixelSHA256 {
      json.member("referencePixelSHA256", digest.hex)
    }
    if let test = failure.test { json.member("test", test) }
    json.member("totalPixels", record.totalPixels)
    json.member("verdict", record.verdict)
    json.endObject()
  }

  /// Folders no test uses any more, each with its orphan count and the folder its pixels moved
  /// to, when known.
  private func writeAbandonedFolders(to json: inout JSONStream) {
    json.key("abandonedFolders")
    json.beginArray()
    for folder in abandonedFolders {
      json.beginObject()
      json.key("movable")
      json.bool(folder.movable)
      if let movedTo = folder.movedTo { json.member("movedTo", movedTo) }
      json.member("orphans", folder.orphans)
      json.member("path", folder.path)
      json.endObject()
    }
    json.endArray()
  }
}
