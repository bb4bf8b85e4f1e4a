import Foundation
import ProcessSupport

/// ImageMagick's `compare -metric AE`, run as a subprocess: what a user without this library
/// would run to count differing pixels.
///
/// Only `/usr/bin/compare` is used, and only when it says it is ImageMagick: a `convert` or
/// `compare` earlier on `PATH` may be a wrapper or a stand-in (this machine has a fake
/// `/usr/local/bin/convert`).
struct ImageMagick {
  let executable: URL
  /// The first line of `compare -version`, for the report.
  let version: String

  /// Finds ImageMagick's `compare`, or says why the baseline cannot run.
  static func locate(path: String = "/usr/bin/compare") -> Result<ImageMagick, LocateFailure> {
    let url = URL(fileURLWithPath: path)
    guard FileManager.default.isExecutableFile(atPath: path) else {
      return .failure(LocateFailure(description: "\(path) is missing"))
    }
    guard let run = try? ChildProcess.capture(url, ["-version"]),
      let firstLine = run.output.split(separator: "\n").first,
      firstLine.contains("ImageMagick")
    else {
      return .failure(LocateFailure(description: "\(path) does not say it is ImageMagick"))
    }
    return .success(ImageMagick(executable: url, version: String(firstLine)))
  }

  struct LocateFailure: Error, CustomStringConvertible {
    let description: String
  }

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// Runs `compare -metric AE <arguments> null:` and returns the differing-pixel count it prints.
  /// - Parameter inputs: The two images, with any reading options before each (`-size`, `-depth`).
  /// - Returns: The count ImageMagick reports.
  /// - Throws: `Failure` when `compare` fails (exit status 2) or prints no number.
  func absoluteErrorCount(_ inputs: [String]) throws -> Int {
    let run = try ChildProcess.capture(executable, ["-metric", "AE"] + inputs + ["null:"])
    // Exit status 1 only means "the images differ".
    guard run.status == 0 || run.status == 1,
      let count = Double(run.error.trimmingCharacters(in: .whitespacesAndNewlines))
    else {
      throw Failure(
        description: "compare exited with \(run.status): \(run.error.prefix(300))")
    }
    return Int(count)
  }
}
