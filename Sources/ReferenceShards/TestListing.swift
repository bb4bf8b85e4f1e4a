import Foundation
import ProcessSupport

/// The tests `swift test list --skip-build` prints, one per line, of both frameworks.
public enum TestListing {
  /// The test names in a listing's output: one per non-empty line, trimmed, sorted and
  /// de-duplicated.
  public static func parse(_ output: String) -> [String] {
    let names = output.split(whereSeparator: \.isNewline)
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
    return Array(Set(names)).sorted()
  }

  /// Runs `swift test list --skip-build` in a package.
  /// - Parameters:
  ///   - packageRoot: The package's folder.
  ///   - swift: The `swift` program to run.
  ///   - packageArguments: Arguments that say where the package is built, such as
  ///     `--scratch-path DIR`.
  /// - Returns: The sorted test names.
  /// - Throws: `ShardError.listingFailed` when the command fails, `.emptyListing` when it lists
  ///   nothing: never "run everything"; `.interrupted` when this process was interrupted.
  public static func list(
    in packageRoot: URL, swift: String = "swift", packageArguments: [String] = []
  ) throws(ShardError) -> [String] {
    let result: ChildProcess.Output
    do {
      result = try ChildProcess.capture(
        URL(fileURLWithPath: "/usr/bin/env"),
        [swift, "test", "list", "--skip-build"] + packageArguments, in: packageRoot)
    } catch {
      throw .listingFailed(status: -1, output: "\(error)")
    }
    if let signal = Interruption.signal { throw .interrupted(signal: signal) }
    guard result.status == 0 else {
      throw .listingFailed(status: result.status, output: result.error)
    }
    let tests = parse(result.output)
    guard !tests.isEmpty else { throw .emptyListing }
    return tests
  }

  /// Reads a saved listing (`swift test list` output) from a file.
  /// - Throws: `ShardError.unreadableListing` when it cannot be read or names no test.
  public static func read(from url: URL) throws(ShardError) -> [String] {
    let text: String
    do {
      text = try String(contentsOf: url, encoding: .utf8)
    } catch {
      throw .unreadableListing(path: url.path, reason: (error as NSError).localizedDescription)
    }
    let tests = parse(text)
    guard !tests.isEmpty else {
      throw .unreadableListing(
        path: url.path,
        reason: "it names no test; save the output of `swift test list --skip-build` in it")
    }
    return tests
  }
}
