import Foundation
import ProcessSupport

/// pixelmatch 7.2.0's JavaScript original, run with node on the same raw RGBA files: the
/// perceptual comparison most visual-testing tools (Playwright among them) use.
///
/// It lives outside the repository, in the anchors folder beside the checkout
/// (`../shared/anchors/pixelmatch-7.2.0`, where CI clones `shared/` too); nothing in the package
/// depends on it. `Scripts/pixelmatch-timing.mjs` times only the call, after a warm-up.
struct PixelmatchJS {
  let node: URL
  let index: URL
  let script: URL

  /// Timings of one pair.
  struct Figures {
    var count: Int
    var diffCount: Int
    var countTiming: Timing
    var diffTiming: Timing
    var nodeVersion: String
  }

  /// Finds node, the anchor and the timing script, or says which is missing and what to do.
  static func locate(anchors: String, script: String) -> Result<PixelmatchJS, Failure> {
    let index = URL(fileURLWithPath: anchors).appendingPathComponent("pixelmatch-7.2.0/index.js")
      .standardizedFileURL
    guard FileManager.default.fileExists(atPath: index.path) else {
      return .failure(
        Failure(
          description: "the pixelmatch anchor is missing: no \(index.path) (the anchors folder "
            + "is expected at ../shared/anchors beside the checkout; pass --anchors DIR)"))
    }
    guard FileManager.default.fileExists(atPath: script) else {
      return .failure(
        Failure(description: "\(script) is missing; run from the repository root"))
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    guard
      let node = path.split(separator: ":").map({ URL(fileURLWithPath: String($0)) })
        .map({ $0.appendingPathComponent("node") })
        .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
    else {
      return .failure(
        Failure(
          description: "node is not on PATH, so pixelmatch's JavaScript cannot run; install "
            + "Node.js 18 or newer"))
    }
    return .success(
      PixelmatchJS(node: node, index: index, script: URL(fileURLWithPath: script)))
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private struct Output: Decodable {
    var count: Int
    var diffCount: Int
    var countMs: [Double]
    var diffMs: [Double]
    var node: String
  }

  /// Times pixelmatch on two raw RGBA8 files, without and with a diff output.
  func measure(
    actual: String, reference: String, width: Int, height: Int, runs: Int
  ) throws -> Figures {
    let run = try ChildProcess.capture(
      node,
      [script.path, index.path, actual, reference, "\(width)", "\(height)", "\(runs)"])
    guard run.status == 0,
      let parsed = try? JSONDecoder().decode(Output.self, from: Data(run.output.utf8))
    else {
      throw Failure(
        description: "node exited with \(run.status): \(run.error.prefix(300))")
    }
    return Figures(
      count: parsed.count, diffCount: parsed.diffCount,
      countTiming: Timing(samples: parsed.countMs.map { $0 / 1000 }),
      diffTiming: Timing(samples: parsed.diffMs.map { $0 / 1000 }), nodeVersion: parsed.node)
  }
}
