import Foundation
import ReferenceImageCore
import ReferenceImports
import SyntheticBundles

// Times `merge-refs --dry-run` (the plan) on result bundles, against the same attachments
// exported as files, and on a synthetic bundle of thousands of snapshots; prints each figure
// beside its target from issue 40. Targets are reported as PASS or MISS, never asserted.
//
//   ImportBenchmark --merge-refs PATH [--fixtures DIR] [--work DIR] [--runs N]
//                   [--attachments N]

struct Options {
  var mergeRefs = ".build-release/merge-refs"
  var fixtures = "../shared/fixtures/imports"
  var work = ".build-release/import-benchmark"
  var runs = 5
  var attachments = 5000

  init(_ arguments: [String]) {
    var rest = arguments[...]
    while let flag = rest.popFirst() {
      guard let value = rest.popFirst() else { Self.usage("\(flag) needs a value") }
      switch flag {
      case "--merge-refs": mergeRefs = value
      case "--fixtures": fixtures = value
      case "--work": work = value
      case "--runs": runs = Int(value) ?? runs
      case "--attachments": attachments = Int(value) ?? attachments
      default: Self.usage("unknown option \(flag)")
      }
    }
  }

  static func usage(_ message: String) -> Never {
    FileHandle.standardError.write(
      Data(
        "error: \(message)\nusage: ImportBenchmark --merge-refs PATH [--fixtures DIR] [--work DIR] [--runs N] [--attachments N]\n"
          .utf8))
    exit(64)
  }
}

/// One run's wall time and peak memory, from `/usr/bin/time`.
struct Measurement {
  var seconds: Double
  var megabytes: Double
}

func measure(_ options: Options, _ arguments: [String]) throws -> (Measurement, String) {
  let report = URL(fileURLWithPath: options.work).appendingPathComponent("time.txt")
  let output = URL(fileURLWithPath: options.work).appendingPathComponent("output.txt")
  _ = FileManager.default.createFile(atPath: output.path, contents: nil)
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
  process.arguments = ["-f", "%e %M", "-o", report.path, options.mergeRefs] + arguments
  process.standardOutput = try FileHandle(forWritingTo: output)
  process.standardError = FileHandle.nullDevice
  // Wall time measured here, to the millisecond (`time` rounds to 10 ms); `time` gives the
  // peak memory.
  let start = DispatchTime.now().uptimeNanoseconds
  try process.run()
  process.waitUntilExit()
  let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  let fields = try String(contentsOf: report, encoding: .utf8)
    .split(whereSeparator: \.isWhitespace).suffix(2).compactMap { Double($0) }
  guard fields.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
  return (
    Measurement(seconds: seconds, megabytes: fields[1] / 1024),
    try String(contentsOf: output, encoding: .utf8)
  )
}

/// The median of `runs` measurements of each command after one warm-up each, and the largest
/// peak memory. The commands take turns, so a change in the machine's load touches both alike.
func medians(_ options: Options, _ commands: [[String]]) throws -> [(Measurement, String)] {
  var outputs = try commands.map { try measure(options, $0).1 }
  var runs = commands.map { _ in [Measurement]() }
  for _ in 0..<options.runs {
    for (index, command) in commands.enumerated() {
      let (run, text) = try measure(options, command)
      runs[index].append(run)
      outputs[index] = text
    }
  }
  return zip(runs, outputs).map { runs, output in
    let seconds = runs.map(\.seconds).sorted()[runs.count / 2]
    return (Measurement(seconds: seconds, megabytes: runs.map(\.megabytes).max() ?? 0), output)
  }
}

/// Writes the folder `xcresulttool export attachments` would write for a bundle, from what
/// this package reads of it: `manifest.json` and one file per attachment.
func writeExport(of bundle: ResultBundle, to folder: URL) throws {
  try? FileManager.default.removeItem(at: folder)
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  var tests: [String: [[String: Any]]] = [:]
  var order: [String] = []
  for attachment in try bundle.attachments() {
    guard case .object(let id) = attachment.payload else { continue }
    let file = UUID().uuidString + "." + (attachment.name.split(separator: ".").last ?? "bin")
    try Data(try bundle.payload(id)).write(to: folder.appendingPathComponent(file))
    var entry: [String: Any] = [
      "exportedFileName": file, "suggestedHumanReadableName": attachment.name,
    ]
    entry["configurationName"] = attachment.provenance.configuration
    entry["deviceName"] = attachment.provenance.device
    if !attachment.provenance.arguments.isEmpty {
      entry["arguments"] = attachment.provenance.arguments
    }
    if tests[attachment.provenance.test] == nil { order.append(attachment.provenance.test) }
    tests[attachment.provenance.test, default: []].append(entry)
  }
  let manifest = order.map { ["testIdentifier": $0, "attachments": tests[$0]!] as [String: Any] }
  try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted])
    .write(to: folder.appendingPathComponent("manifest.json"))
}

/// A small PNG whose pixels encode `index`, so no two are alike.
func snapshot(_ index: Int) throws -> [UInt8] {
  var image = try RGBAImage(width: 96, height: 64, color: .white)
  for bit in 0..<24 where index >> bit & 1 == 1 {
    image[bit % 96, bit / 96 + 1] = RGBAColor(red: 20, green: 40, blue: 200)
  }
  return try PNGEncoder().encode(image)
}

/// A bundle of `count` recorded snapshots (five per test) and a destination that holds each
/// one: half with the same pixels, half with others.
func writeSyntheticCase(count: Int, in work: URL) throws -> (bundle: URL, destination: URL) {
  let bundleURL = work.appendingPathComponent("synthetic-\(count).xcresult")
  let destination = work.appendingPathComponent("synthetic-\(count)-package")
  try? FileManager.default.removeItem(at: bundleURL)
  try? FileManager.default.removeItem(at: destination)
  let snapshots = destination.appendingPathComponent("Tests/AppTests/__Snapshots__/SnapTests")
  try FileManager.default.createDirectory(at: snapshots, withIntermediateDirectories: true)
  var tests: [SyntheticBundle.Test] = []
  for test in 0..<(count + 4) / 5 {
    var attachments: [SyntheticBundle.Attachment] = []
    for number in 1...5 where test * 5 + number <= count {
      let index = test * 5 + number
      let name = "test\(test).\(number)"
      let png = try snapshot(index)
      attachments.append(.init(fileName: "\(name)_0_\(UUID().uuidString).png", bytes: png))
      let reference = index % 2 == 0 ? png : try snapshot(index + 1 << 20)
      try Data(reference).write(to: snapshots.appendingPathComponent("\(name).png"))
    }
    tests.append(.init(identifier: "SnapTests/test\(test)()", attachments: attachments))
  }
  var bundle = SyntheticBundle(url: bundleURL)
  try bundle.write(tests)
  return (bundleURL, destination)
}

func verdict(_ pass: Bool) -> String { pass ? "PASS" : "MISS" }

let options = Options(Array(CommandLine.arguments.dropFirst()))
#if DEBUG
  print("warning: this is a debug build; figures are meaningless. Build with -c release.\n")
#endif
let work = URL(fileURLWithPath: options.work)
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)

// The real 96-attachment bundle against the same attachments as an export folder.
let real = URL(fileURLWithPath: options.fixtures).appendingPathComponent(
  "xcparse/testHEIC.xcresult")
let export = work.appendingPathComponent("testHEIC-export")
try writeExport(of: try ResultBundle(url: real), to: export)
let empty = work.appendingPathComponent("empty-package")
try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
let pair = try medians(
  options, [["--dry-run", real.path, empty.path], ["--dry-run", export.path, empty.path]])
let (fromBundle, fromExport) = (pair[0].0, pair[1].0)
let ratio = fromBundle.seconds / max(fromExport.seconds, 0.001)
print("testHEIC.xcresult (96 attachments), plan (--dry-run), median of \(options.runs):")
print(
  String(
    format:
      "  bundle %.3f s, %.0f MB; export folder %.3f s, %.0f MB; ratio %.2f (target <= 1.5) %@",
    fromBundle.seconds, fromBundle.megabytes, fromExport.seconds, fromExport.megabytes, ratio,
    verdict(ratio <= 1.5)))

// The synthetic bundle of many recorded snapshots, all placed.
let synthetic = try writeSyntheticCase(count: options.attachments, in: work)
let (plan, output) = try medians(
  options, [["--dry-run", synthetic.bundle.path, synthetic.destination.path]])[0]
print("synthetic bundle of \(options.attachments) recorded snapshots, plan (--dry-run):")
print(
  String(
    format: "  %.3f s (target <= 2) %@, peak memory %.0f MB (target <= 100) %@",
    plan.seconds, verdict(plan.seconds <= 2), plan.megabytes, verdict(plan.megabytes <= 100)))
print("  " + (output.split(separator: "\n").last.map(String.init) ?? ""))
