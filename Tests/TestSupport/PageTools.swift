import Foundation

/// The programs that drive the review page in a real browser: the Python with Playwright that
/// `Scripts/install-dependencies --python-tools` installs in the checkout, and Chromium.
/// `Scripts/test` installs both, so a missing one fails the test, naming the fix.
public struct PageTools: Sendable {
  /// The Python with Playwright.
  public var python: String
  /// The Chromium executable.
  public var chromium: String

  /// Why a tool is missing, and how to install it.
  public struct Missing: Error, CustomStringConvertible {
    public var description: String
  }

  /// Finds both tools.
  /// - Parameter checkout: The package root this test bundle was built from.
  public init(checkout: URL) throws {
    let python = checkout.appendingPathComponent(".build/dev-tools/venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: python) else {
      throw Missing(
        description: "\(python) is missing: run Scripts/install-dependencies --python-tools "
          + "(Scripts/test does) to install Playwright")
    }
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    guard let found else {
      throw Missing(
        description: "chromium is not installed: run apt-get install chromium (Scripts/test "
          + "installs it)")
    }
    self.python = python
    chromium = found
  }
}

extension PageTools {
  /// The Playwright driver every page test runs (`review_page_driver.py`): it opens a report's
  /// page in Chromium, performs `steps` and prints what it saw as JSON.
  public static func driver(checkout: URL) -> URL {
    checkout.appendingPathComponent(
      "Tests/ReferenceReviewTests/__Fixtures__/review-page/review_page_driver.py")
  }

  /// Runs the driver on a report's page with `steps` and decodes what it printed.
  /// - Parameters:
  ///   - index: The report's `index.html`.
  ///   - steps: The driver's steps, as its JSON.
  ///   - checkout: The package root this test bundle was built from.
  ///   - work: A folder for the steps file and, unless `shots` is given, the screenshots.
  ///   - shots: Where the screenshots go.
  /// - Throws: `Missing` when a tool is not installed; `Failed` when the driver fails.
  public static func drive<Result: Decodable>(
    _ index: URL, steps: Data, checkout: URL, work: URL, shots: URL? = nil,
    as result: Result.Type = Result.self
  ) throws -> Result {
    let tools = try PageTools(checkout: checkout)
    let stepsFile = work.appendingPathComponent("steps.json")
    try steps.write(to: stepsFile)
    var environment = ProcessInfo.processInfo.environment
    environment["CHROMIUM"] = tools.chromium
    let run = try runProcess(
      tools.python,
      [
        driver(checkout: checkout).path, index.path, stepsFile.path,
        (shots ?? work.appendingPathComponent("shots")).path,
      ], environment: environment, timeout: 300)
    guard run.status == 0 else { throw Failed(description: run.all) }
    return try JSONDecoder().decode(Result.self, from: Data(run.output.utf8))
  }

  /// The steps as the driver's JSON.
  public static func steps(_ steps: [[String: Any]]) throws -> Data {
    try JSONSerialization.data(withJSONObject: steps)
  }

  /// The driver failed: what it printed.
  public struct Failed: Error, CustomStringConvertible {
    public var description: String
  }
}
